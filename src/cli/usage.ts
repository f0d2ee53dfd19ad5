/** The top-level `--help` text, shared by `main.ts` and `resolve-command.ts` (which must not import each other). */
export const USAGE = `usage: conda-resolve [resolve] [SPEC...] [-c CHANNEL]... [-p PLATFORM]... [-f FILE]...
                     [--format NAME] [-o FILE] [--channel-priority strict|flexible|disabled]
                     [--exclude-newer DATE] [--virtual-package NAME=VERSION[=BUILD]]...
                     [--cache-dir DIR] [--offline] [--refresh] [--timeout SECONDS]
                     [--max-repodata-size SIZE] [--override-channels] [-v|-vv] [-q|--no-progress]
                     [--json] [--dry-run] [-n NAME]
       conda-resolve info [-p PLATFORM]... [-c CHANNEL]... [--json]
       conda-resolve cache clean [--dry-run] [--cache-dir DIR]
       conda-resolve completion bash|zsh|fish
       conda-resolve config [--json]
       conda-resolve diff OLD NEW [--json]   (see conda-resolve diff --help)
       conda-resolve audit [SPEC...] --db PATH   (see conda-resolve audit --help)
       conda-resolve tree|why NAME|why-not SPEC [SPEC...] [resolve options]   (see conda-resolve tree --help)
       conda-resolve formats [--json]
       conda-resolve serve [--host HOST] [--port PORT] [...]   (see conda-resolve serve --help)
       conda-resolve worker --redis URL [--workers N] [--cache-dir DIR]   (see conda-resolve worker --help)
       conda-resolve --version

Solve conda environments for one or more platforms and print the solved packages as JSON,
or as the text of an exporter (--format; see conda-resolve formats).

  -c, --channel CHANNEL      channel, in priority order, before the configured ones (default:
                             .condarc channels, else conda-forge); repeatable
  -p, --platform PLATFORM    target platform such as linux-64 or osx-arm64 (default: this
                             machine's); repeatable
  -f, --file FILE            environment.yml/.yaml, a .txt spec list, an @EXPLICIT file, a
                             lock (pixi.lock, conda-lock.yml: its records as they are, no solve),
                             or a pixi manifest (pixi.toml, pyproject.toml with [tool.pixi]);
                             repeatable
  -e, --environment NAME     the environment of a pixi.lock or pixi manifest (default: default;
                             a manifest written to a pixi.lock without -e locks every environment)
      --lock FILE            a previous pixi.lock or conda-lock.yml to stay close to: every
                             locked package the request still allows keeps its record; the
                             output is in FILE's format unless --format or -o says otherwise
      --update NAME          with --lock: solve NAME afresh (and what it forces); repeatable
      --diff                 with --lock: print what the solve changes against the lock
                             (a table, or JSON with --json) instead of the result; -o still
                             writes the result
      --check                with --lock: exit 0 if the lock satisfies the request on every
                             platform, 1 (with the reasons) if not; no solve, no download
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
      --override-channels    ignore the channels of .condarc files and CONDA_CHANNELS
  -v, --verbose              log each repodata request, retry and mirror switch, each channel
                             subdir loaded and each platform solved to stderr; -vv adds cache
                             hits and misses and the time of each step
  -q, --quiet, --no-progress no progress display
      --json                 native JSON (the default; with -o the file gets JSON whatever its
                             name); not with --format; with --diff, the changes as JSON
      --dry-run              solve and report, but do not write the -o file (nothing is ever
                             installed)
  -n, --name NAME            conda's environment name: accepted, shown in the summary line
  -h, --help                 show this help
`;
