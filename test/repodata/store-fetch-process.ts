/**
 * A separate process for the cache tests: loads one subdir into a cache dir and prints its record
 * count. `npx tsx test/repodata/store-fetch-process.ts <cache dir> <channel URL> <subdir>`
 */
import { RepodataStore } from '../../repodata/store.js';
import { parseChannel } from '../../vocabulary/channel.js';

const [cacheDir, channelUrl, subdir] = process.argv.slice(2);
if (!cacheDir || !channelUrl || !subdir) {
  process.stderr.write('usage: store-fetch-process <cache dir> <channel URL> <subdir>\n');
  process.exit(2);
}
const store = new RepodataStore({ cacheDir });
try {
  const [index] = await store.prepare([parseChannel(channelUrl)], [subdir], []);
  process.stdout.write(`${index!.recordCount}\n`);
} finally {
  await store.close();
}
