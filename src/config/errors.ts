/** The error of configuration reading (a module of its own so every reader can throw it). */
import { UsageError } from '../errors.js';

/** A configuration file or variable that cannot be used; `source` names it. */
export class ConfigFileError extends UsageError {
  readonly source: string;
  constructor(source: string, message: string, options?: { cause?: unknown }) {
    super('CR_ERR_CONFIG_FILE', message, options);
    this.source = source;
  }
}
