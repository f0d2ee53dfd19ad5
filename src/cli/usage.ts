/** The top-level `--help` text, shared by `main.ts` and `resolve-command.ts` (which must not import each other). */
export const USAGE = `usage: conda-resolve [resolve] [SPEC...] [-c CHANNEL]... [-p PLATFORM]... [-f FILE]...
                     [--format NAME] [-o FILE] [--channel-priority strict|flexible|disabled]
                     [--exclude-newer DATE] [--virtual-package NAME=VERSION[=BUILD]]...
                     [--cache-dir DIR] [--offline] [--refresh] [--timeout SECONDS]
                     [--max-repodata-size SIZE] [-q]
       conda-resolve formats [--json]
       conda-resolve serve [--host HOST] [--port PORT] [...]   (see conda-resolve serve --help)
       conda-resolve worker --redis URL [--workers N] [--cache-dir DIR]   (see conda-resolve worker --help)
       conda-resolve --version

Solve conda environments for one or more platforms and print the solved packages as JSON,
or as the text of an exporter (--format; see conda-resolve formats).

  -c, --channel CHANNEL      channel, in priority order (default: conda-forge); repeatable
  -p, --platform PLATFORM    target platform such as linux-64 or osx-arm64 (default: this
                             machine's); repeatable
  -f, --file FILE            environment.yml/.yaml, a .txt spec list or an @EXPLICIT file;
                             repeatable
      --format NAME          exporter name or alias (explicit, environment-yaml, conda-lock, pixi...)
  -o, --output FILE          write the result to FILE; without --format the format is chosen
                             from the file name (pixi.lock, conda-lock.yml, environment.yml...)
      --channel-priority P   strict (default), flexible or disabled
      --exclude-newer DATE   ignore packages published after DATE (ISO 8601)
      --virtual-package V    add or replace a virtual package, e.g. __glibc=2.17; repeatable
      --cache-dir DIR        repodata cache (default: the user cache directory)
      --offline              use cached repodata only
      --refresh              revalidate cached repodata now
      --timeout SECONDS      time limit per platform: loading repodata and solving (default: 300)
      --max-repodata-size SIZE
                             stop a channel subdir whose repodata decodes to more than SIZE
                             (CONDA_RESOLVE_MAX_REPODATA_SIZE; default 1GiB, at most 2GiB)
  -q, --quiet                no progress display
  -h, --help                 show this help
`;
