/**
 * Control characters in text that came from a channel or a request (repodata names, builds,
 * depends, file names): a newline there splits one line of an `@EXPLICIT` file into two, and an
 * escape sequence printed raw drives the terminal (window title, clear screen).
 *
 * "Control" here is Unicode's Cc category (U+0000..U+001F, U+007F..U+009F) plus the line and
 * paragraph separators U+2028/U+2029, which some readers (YAML 1.1 parsers, JavaScript) treat as
 * line breaks.
 */

// Matching control characters is the point of these expressions.
/* eslint-disable no-control-regex */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_GLOBAL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** What a terminal may still be shown of them: tab and newline, which lay text out. */
const CONTROL_BUT_LAYOUT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;
/* eslint-enable no-control-regex */

export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}

function escapeOne(character: string): string {
  const code = character.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `text` with every control character as a visible `\xNN` (or `\uNNNN`) escape, tab and newline included. */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL_GLOBAL, escapeOne);
}

/**
 * `text` made safe to print on a terminal: control characters escaped, except newline and tab,
 * which messages use for their layout. A carriage return is escaped (it overwrites a line).
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL_BUT_LAYOUT, escapeOne);
}
