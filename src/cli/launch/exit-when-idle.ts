/**
 * Ends the process as soon as a command is done, when nothing else is left to run: left to itself,
 * Node frees the whole heap page by page before exiting (the cost: README.md), which
 * `process.exit` skips. Only when idle: the output is flushed first (stdout is asynchronous on some
 * platforms' pipes), and any timer, open file, socket or worker still active after one more turn
 * of the event loop means work is left, so the process then ends on its own as before.
 */

/** Resolves once what was written to `stream` before has been handed to the system. */
function flushed(stream: NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean }): Promise<void> {
  if (stream.destroyed === true || stream.writableEnded === true) return Promise.resolve();
  return new Promise((resolve) => {
    stream.write('', () => resolve());
  });
}

/** The terminal or pipe handles of the standard streams: not work of ours. */
const STANDARD_STREAMS = new Set(['TTYWrap', 'PipeWrap']);

export async function exitWhenIdle(code: number): Promise<void> {
  process.exitCode = code;
  await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
  await new Promise((resolve) => setImmediate(resolve));
  if (process.getActiveResourcesInfo().every((resource) => STANDARD_STREAMS.has(resource))) process.exit(code);
}

/** Runs the command line on this process's arguments and streams, then ends once idle. */
export async function runThisProcess(main: typeof import('../main.js').main): Promise<void> {
  const code = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() });
  // `serve` and `worker` return only when they stop, so this ends only finished commands.
  await exitWhenIdle(code);
}
