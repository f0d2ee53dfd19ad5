/**
 * The entry of the services' bundle, `dist/cli/services.cjs` (scripts/build-cli.mjs): the `serve`
 * and `worker` commands with the HTTP service and the queue worker, which the CLI's bundle leaves
 * out. The CLI's bundle runs it with its own code cache the first time either command runs.
 */
export * as serve from '../commands/serve.js';
export * as worker from '../commands/worker.js';
