/**
 * A request's decoding budget over loads shared between requests (repodata/decoding-budget.ts):
 * a load is charged once per request however many of its platforms wait for it, a request joining
 * a load under way is charged what it decoded so far, and a spent budget names the load that
 * passed it while the other request's budget is untouched.
 */
import { describe, expect, it } from 'vitest';
import { DecodingBudget, DecodingMeter } from '../../repodata/decoding-budget.js';

describe('DecodingMeter and DecodingBudget', () => {
  it('charges a shared load once per request and gives it back when the request leaves', () => {
    const a = new DecodingBudget(100);
    const noarch = new DecodingMeter('hostile', 'noarch');
    noarch.join(a);
    noarch.join(a);
    noarch.add(40);
    expect(a.usedBytes).toBe(40);
    noarch.leave(a);
    expect(a.usedBytes).toBe(40);
    noarch.leave(a);
    expect(a.usedBytes).toBe(0);
    expect(noarch.idle).toBe(true);
  });

  it('a request joining a load under way is charged its bytes so far; body ends give them back', () => {
    const a = new DecodingBudget(100);
    const b = new DecodingBudget(100);
    const load = new DecodingMeter('c', 'linux-64');
    load.join(a);
    load.add(30);
    load.join(b);
    expect(b.usedBytes).toBe(30);
    load.release(30);
    expect([a.usedBytes, b.usedBytes]).toEqual([0, 0]);
  });

  it('past its limit a budget is spent for good, naming the load; another request sharing the load is not', () => {
    const hostile = new DecodingBudget(50);
    const other = new DecodingBudget(1000);
    const load = new DecodingMeter('bomb', 'osx-64');
    load.join(hostile);
    load.join(other);
    load.add(60);
    expect(hostile.spent).toBe(true);
    expect(String((hostile.signal.reason as Error).message)).toMatch(
      /^Cannot fetch repodata for bomb\/osx-64: this request's repodata decodes to more than 50 bytes at once/,
    );
    expect(other.spent).toBe(false);
    load.leave(hostile);
    load.release(60);
    expect(hostile.spent).toBe(true);
    expect(hostile.errorFor('bomb', 'noarch').code).toBe('CR_ERR_REPODATA_TOO_LARGE');
  });
});
