/**
 * YAML as the files we read hold it: plain data, no anchors and no aliases. No tool writes them
 * into a lock or an environment file (pixi, conda-lock, conda and ruamel/serde_yaml emitters never
 * do), and an alias lets a small file stand for a huge one: a 900 KB pixi.lock whose records share
 * `depends: *D` expands into hundreds of MB of answer. So a file with an anchor is refused at the
 * anchor, before anything is built from it.
 *
 * Locks are read with the core schema (YAML 1.2: strings, numbers, booleans, null), not js-yaml's
 * default one, so `2024-01-01` stays text and `<<` is not a merge key, and a lock read and written
 * again keeps its values.
 */
import yaml from 'js-yaml';

/** Why a YAML text cannot be read, with where (1-based) when known. */
export class PlainYamlError extends Error {
  readonly reason: string;
  readonly line?: number;
  readonly column?: number;
  constructor(reason: string, line?: number, column?: number) {
    super(line === undefined ? reason : `${reason} at line ${line}, column ${column}`);
    this.reason = reason;
    if (line !== undefined) {
      this.line = line;
      this.column = column;
    }
  }
}

class AnchorFound extends Error {
  constructor(
    readonly anchor: string,
    readonly line: number,
  ) {
    super(anchor);
  }
}

/**
 * Parses one YAML document of plain data; throws `PlainYamlError` for bad YAML and for any anchor.
 * `schema: 'default'` keeps js-yaml's default schema (environment files were always read with it).
 */
export function loadPlainYaml(content: string, filename: string, options: { readonly schema?: 'core' | 'default' } = {}): unknown {
  try {
    return yaml.load(content, {
      filename,
      json: false,
      schema: options.schema === 'default' ? yaml.DEFAULT_SCHEMA : yaml.CORE_SCHEMA,
      listener(event, state) {
        // js-yaml's state carries the anchor of the node just read (not in its type declarations).
        const anchor = (state as unknown as { anchor?: string | null }).anchor;
        if (event === 'close' && anchor !== null && anchor !== undefined) {
          // The node ends here; the anchor stands before it.
          const at = content.lastIndexOf(`&${anchor}`, state.position);
          throw new AnchorFound(anchor, at < 0 ? state.line + 1 : lineOf(content, at));
        }
      },
    });
  } catch (error) {
    if (error instanceof AnchorFound) {
      throw new PlainYamlError(
        `line ${error.line} defines the YAML anchor "&${error.anchor}"; anchors and aliases are not accepted (no tool writes them, and an alias can make a small file stand for a huge one)`,
      );
    }
    if (error instanceof yaml.YAMLException) {
      throw error.mark ? new PlainYamlError(error.reason, error.mark.line + 1, error.mark.column + 1) : new PlainYamlError(error.reason);
    }
    throw error;
  }
}

/** The 1-based line of an offset. */
function lineOf(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf('\n'); i !== -1 && i < offset; i = content.indexOf('\n', i + 1)) line++;
  return line;
}
