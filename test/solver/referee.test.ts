/**
 * Referee tests: on the real channel snapshots, our answer must be valid and pick, for every
 * requested package, the version rattler (resolvo) picks or a higher one by conda's order; a
 * request unsatisfiable for one is unsatisfiable for the other.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { solve } from '../../solver/index.js';
import { parseMatchSpec } from '../../vocabulary/match-spec.js';
import { compareVersions } from '../../vocabulary/version.js';
import { virtualPackages } from '../../vocabulary/virtual-packages.js';
import { startChannelServer, type ChannelServer } from '../helpers/channel-server.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { loadChannel } from './helpers/load-channel.js';
import { rattlerSolve, validityProblems } from './helpers/referee.js';
import { ENVIRONMENTS } from './helpers/environments.js';

describeShared('solver against rattler on real channels', () => {
  let server: ChannelServer;
  const channels = new Map<string, ReturnType<typeof loadChannel>>();
  const channelFor = (folder: string, platform: string): ReturnType<typeof loadChannel> => {
    const key = `${folder}/${platform}`;
    let channel = channels.get(key);
    if (!channel) channels.set(key, (channel = loadChannel(`${CHANNELS_DIR}/${folder}`, platform, folder)));
    return channel;
  };

  beforeAll(async () => {
    server = await startChannelServer({ root: CHANNELS_DIR });
  });
  afterAll(async () => {
    await server.close();
  });

  for (const environment of ENVIRONMENTS) {
    const { folder, platform, specs } = environment;
    it(`${folder} ${platform}: ${specs.join(' ')}`, async () => {
      const virtual = virtualPackages(platform);
      const ours = solve({ specs, channels: [channelFor(folder, platform)], virtualPackages: virtual });
      const theirs = await rattlerSolve(specs, `${server.url}/${folder}`, platform, virtual);
      if ('unsat' in theirs) {
        expect(ours.kind, `rattler: ${theirs.unsat}`).toBe('unsatisfiable');
        return;
      }
      expect(ours.kind, ours.kind === 'unsatisfiable' ? ours.message : '').toBe('solved');
      if (ours.kind !== 'solved') return;
      expect(validityProblems(ours.records, virtual, specs)).toEqual([]);
      for (const spec of specs) {
        const name = parseMatchSpec(spec).name;
        const mine = ours.records.find((r) => r.name === name)!;
        const reference = theirs.find((p) => p.name === name)!;
        expect(
          compareVersions(mine.version, reference.version),
          `${name}: ours ${mine.version}, rattler ${reference.version}`,
        ).toBeGreaterThanOrEqual(0);
      }
    });
  }
});
