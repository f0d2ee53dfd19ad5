/**
 * A bound on the size of any answer (native JSON or a format's text), so a request whose answer
 * would be huge gets a clear error instead of exhausting memory or hitting V8's string limit (a
 * `RangeError: Invalid string length`, which used to become a 500). A real answer is far below it:
 * the largest real locks are tens of MB.
 */
import { CondaResolveError } from '../vocabulary/errors.js';

export const MAX_ANSWER_BYTES = 128 * 1024 * 1024;

export class AnswerTooLargeError extends CondaResolveError {
  constructor(what: string) {
    super(
      'CR_ERR_OUTPUT_TOO_LARGE',
      `Cannot answer: the ${what} would be larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MiB (the limit); ask for fewer platforms or environments`,
    );
  }
}

/** The text `make` builds, or `AnswerTooLargeError` when it is over the bound (or too long to build at all). */
export function boundedAnswer(make: () => string, what: string): string {
  let text: string;
  try {
    text = make();
  } catch (error) {
    if (error instanceof RangeError) throw new AnswerTooLargeError(what);
    throw error;
  }
  // UTF-16 units: at least one byte each, so this never lets a larger answer through.
  if (text.length > MAX_ANSWER_BYTES) throw new AnswerTooLargeError(what);
  return text;
}
