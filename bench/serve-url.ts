/**
 * The URL a `conda-resolve serve` child says it listens on (its JSON log on standard error). The
 * rest of the log keeps being read, so the pipe never fills; `onLine` sees every line.
 */
import type { ChildProcess } from 'node:child_process';

export function listeningUrl(child: ChildProcess, onLine: (line: string) => void = () => undefined): Promise<string> {
  let buffered = '';
  return new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        const match = /"url":"(http:\/\/[^"]+)".*listening on/.exec(line);
        if (match) resolve(match[1]!);
        onLine(line);
      }
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
}
