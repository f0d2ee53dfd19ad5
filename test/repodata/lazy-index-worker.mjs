// Loads the TypeScript worker through tsx: worker threads do not inherit vitest's transform.
import { tsImport } from 'tsx/esm/api';

await tsImport('./lazy-index-worker.ts', import.meta.url);
