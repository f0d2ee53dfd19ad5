/**
 * followSignal: one signal that aborts with the reason of whichever followed signal aborts first,
 * or by its own `abort`, and that stops listening once unlinked (what the store and each
 * platform's deadline use instead of `AbortSignal.any`).
 */
import { describe, expect, it } from 'vitest';
import { followSignal } from '../../repodata/follow-signal.js';

describe('followSignal', () => {
  it('aborts with the reason of the first followed signal that aborts', () => {
    const a = new AbortController();
    const b = new AbortController();
    const { signal } = followSignal(a.signal, undefined, b.signal);
    expect(signal.aborted).toBe(false);
    b.abort('budget spent');
    a.abort('client gone');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('budget spent');
  });

  it('starts aborted when a followed signal already is', () => {
    const a = new AbortController();
    a.abort('before');
    const { signal } = followSignal(new AbortController().signal, a.signal);
    expect(signal.reason).toBe('before');
  });

  it('aborts by its own abort, leaving the followed signals alone', () => {
    const a = new AbortController();
    const follower = followSignal(a.signal);
    follower.abort('timeout');
    expect(follower.signal.reason).toBe('timeout');
    expect(a.signal.aborted).toBe(false);
  });

  it('no longer follows once unlinked', () => {
    const a = new AbortController();
    const b = new AbortController();
    const follower = followSignal(a.signal, b.signal);
    follower.unlink();
    a.abort('late');
    b.abort('late');
    expect(follower.signal.aborted).toBe(false);
  });

  it('follows nothing when given no signal', () => {
    const follower = followSignal(undefined);
    expect(follower.signal.aborted).toBe(false);
    follower.abort('own');
    expect(follower.signal.reason).toBe('own');
  });
});
