// The peer for bench/cli.ts: a Node process that resolves like our CLI but with rattler's solver
// (@conda-org/rattler, resolvo in WebAssembly), one simpleSolve per platform (in parallel), and
// prints the solved packages as JSON. Virtual packages are the same as ours, passed as locked
// records (PEERS.md).
//   node bench/rattler-cli.mjs CHANNEL_URL PLATFORM[,PLATFORM...] SPEC...
import process from 'node:process';
import { simpleSolve } from '@conda-org/rattler';
import { virtualPackages } from '../dist/vocabulary/virtual-packages.js';

const [channel, platformList, ...specs] = process.argv.slice(2);
const platforms = platformList.split(',');
const results = await Promise.all(
  platforms.map(async (platform) => {
    const locked = virtualPackages(platform, process.env).map((record) => ({
      url: `https://virtual.invalid/${record.fn}`,
      packageName: record.name,
      version: record.version,
      build: record.build,
      buildNumber: 0n,
      filename: record.fn,
      subdir: platform,
      depends: [],
    }));
    try {
      const solved = await simpleSolve(specs, [channel], [platform, 'noarch'], locked);
      const packages = solved
        .filter((p) => !p.packageName.startsWith('__'))
        .map((p) => ({ name: p.packageName, version: p.version, build: p.build, url: p.url }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      return { platform, packages, error: null };
    } catch (error) {
      return { platform, packages: [], error: String(error) };
    }
  }),
);
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
