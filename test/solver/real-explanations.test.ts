/**
 * Explanations of ten real unsatisfiable requests on the shared channel snapshots, word for word
 * (`__snapshots__/real-explanations/`). They were picked from a sweep of every `name==version` of
 * both snapshots, alone and next to a python pin: the ones whose builds need different versions
 * (once printed as an empty version), the longest ones, and the usual shapes (a requested package
 * against a requested pin, against what the pin drags in, several rival groups). Each must name
 * versions wherever it names a package, fit in 25 lines, and name a requested spec to change.
 */
import { expect, it } from 'vitest';
import { MAX_EXPLANATION_LINES } from '../../solver/core/explain/render.js';
import { solve, type SolveRequest } from '../../solver/index.js';
import type { KnownSubdir as Platform } from '../../vocabulary/platform.js';
import { virtualPackages } from '../../vocabulary/virtual-packages.js';
import { CHANNELS_DIR, describeShared } from '../helpers/shared.js';
import { loadChannel } from './helpers/load-channel.js';

const CASES: readonly { name: string; folder: 'conda-forge-py39' | 'defaults-main-2022'; platform: Platform; specs: string[] }[] = [
  { name: '01-pip-9-builds-need-old-pythons', folder: 'conda-forge-py39', platform: 'linux-64', specs: ['pip==9.0.0'] },
  { name: '02-setuptools-two-python-series', folder: 'conda-forge-py39', platform: 'linux-64', specs: ['setuptools==29.0.0'] },
  { name: '03-certifi-next-to-python-pin', folder: 'conda-forge-py39', platform: 'linux-64', specs: ['python=3.9', 'certifi==2016.2.28'] },
  {
    name: '04-libgomp-against-what-python-needs',
    folder: 'conda-forge-py39',
    platform: 'linux-64',
    specs: ['python=3.9', 'libgomp==7.3.0'],
  },
  { name: '05-curl-needs-old-openssl', folder: 'conda-forge-py39', platform: 'linux-64', specs: ['python=3.9', 'curl==7.60.0'] },
  { name: '06-sqlite-needs-old-ncurses', folder: 'conda-forge-py39', platform: 'linux-64', specs: ['python=3.9', 'sqlite==3.23.1'] },
  { name: '07-openssl-too-old-for-python', folder: 'conda-forge-py39', platform: 'linux-64', specs: ['python=3.9', 'openssl==1.0.2o'] },
  {
    name: '08-tensorflow-mkl-newer-python',
    folder: 'defaults-main-2022',
    platform: 'linux-aarch64',
    specs: ['python=3.10', 'tensorflow-mkl==2.5.0'],
  },
  { name: '09-gtk3-two-paths-to-python', folder: 'defaults-main-2022', platform: 'linux-aarch64', specs: ['python=3.10', 'gtk3==3.24.21'] },
  { name: '10-anaconda-metapackage', folder: 'defaults-main-2022', platform: 'linux-aarch64', specs: ['python=3.9', 'anaconda==2021.05'] },
];

describeShared('explanations of real unsatisfiable requests', () => {
  const channels = new Map<string, SolveRequest['channels'][number]>();
  const channel = (folder: string, platform: Platform): SolveRequest['channels'][number] => {
    const key = `${folder}/${platform}`;
    let loaded = channels.get(key);
    if (!loaded)
      channels.set(
        key,
        (loaded = loadChannel(`${CHANNELS_DIR}/${folder}`, platform, folder === 'conda-forge-py39' ? 'conda-forge' : 'defaults')),
      );
    return loaded;
  };

  it.each(CASES)('$name: $specs', async ({ name, folder, platform, specs }) => {
    const outcome = solve({ specs, channels: [channel(folder, platform)], virtualPackages: virtualPackages(platform) });
    expect(outcome.kind).toBe('unsatisfiable');
    if (outcome.kind !== 'unsatisfiable') return;
    const text = outcome.message;
    const lines = text.split('\n');
    expect(lines.length).toBeLessThanOrEqual(MAX_EXPLANATION_LINES);
    for (const line of lines) {
      const words = line.replace(/^[│├└─ ]+/, '');
      // An empty version list leaves "requires python , but" or "()" behind.
      expect(words, line).not.toMatch(/ ,| \)|\(\)| {2}| $/);
    }
    // What to change: a requested spec is named (the one that cannot join, or the one it clashes with).
    expect(outcome.explanation.specIndex).toBeLessThan(specs.length);
    expect(lines[0].startsWith(`${outcome.explanation.spec} cannot be installed because `)).toBe(true);
    await expect(text).toMatchFileSnapshot(`./__snapshots__/real-explanations/${name}.txt`);
  });
});
