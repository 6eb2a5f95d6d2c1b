/**
 * Making job-controlled text visible rather than active on a reader's screen.
 *
 * A job chooses its output and the names of the files it writes. Sent raw to
 * a terminal, ESC sequences write the clipboard (OSC 52), retitle the window
 * or plant hyperlinks; `\r` and newlines in a file name overprint or forge
 * listing entries (`payload.sh\rreport.json` printed as `report.json`); bidi
 * controls such as U+202E reorder what is shown (#10 items 10 and 11). Each
 * such character is shown as an escape instead. Pure functions.
 */
import { canonicalText, stringText } from '../name-text.js';

/**
 * Bidi controls (embeddings, overrides, isolates, marks) and line/paragraph
 * separators, which move or break what is drawn; and the characters that
 * draw nothing yet reach a model reading the text: zero-width spaces and
 * joiners, word joiners and invisible operators, the BOM, the soft hyphen,
 * interlinear annotation marks, and the tag and variation-selector planes
 * (U+E0000–E0FFF). A job printed an instruction in tag characters that a
 * reviewer saw as nothing and a model read whole (a red team). The emoji
 * variation selectors U+FE00–FE0F are left as they are: a heart is drawn
 * with one.
 */
const FORMAT_CHARS =
  '\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb\\u{e0000}-\\u{e0fff}';
/** C0 controls except tab and newline, DEL, C1 controls, and FORMAT_CHARS (by code point: the last range is astral). */
const TERMINAL_UNSAFE = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${FORMAT_CHARS}]`, 'gu');
/** The invisible characters the markdown cleaners also show (see sanitize-text.ts); a pattern built from it needs the `u` flag. */
export const FORMAT_CHAR_PATTERN = new RegExp(`[${FORMAT_CHARS}]`, 'gu');

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\\': '\\\\' };

/** One character as an escape: `\n`, `\r`, `\t`, `\x1b` below U+0100, `\u202e` above, `\u{e0041}` past U+FFFF. */
export function escapeChar(ch: string): string {
  const named = NAMED[ch];
  if (named !== undefined) return named;
  const code = ch.codePointAt(0)!;
  if (code > 0xffff) return `\\u{${code.toString(16)}}`;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** True when `text` holds a character escapeForTerminal would change. */
export function isTerminalUnsafe(text: string): boolean {
  TERMINAL_UNSAFE.lastIndex = 0;
  return TERMINAL_UNSAFE.test(text);
}

/** Text for a terminal: controls other than `\n` and `\t`, and bidi/format characters, shown as escapes (`\x1b`, `\r`, `\u202e`). */
export function escapeForTerminal(text: string): string {
  return isTerminalUnsafe(text) ? text.replace(TERMINAL_UNSAFE, escapeChar) : text;
}

/**
 * A workspace name for human output: its text form (core/name-text.ts).
 * Controls, newlines, bidi and other invisible characters, a backslash, and
 * bytes that are not UTF-8 are all escapes there (`payload.sh\rreport.json`,
 * `r\xff.txt`), so no name draws as another name or acts on a terminal, and
 * the shown text is exactly what `export`, `declare` and `ls-files --path`
 * accept. Names reach here in that form already (the engine normalizes every
 * path it is given, providers list in it); anything else, e.g. a record
 * written before names had a text form, is shown as the text form of its
 * UTF-8 bytes.
 */
export function displayName(name: string): string {
  try {
    return canonicalText(name);
  } catch {
    return stringText(name);
  }
}

/** A host path (a real name, not a text form) for human output: backslashes, controls and invisible characters escaped. */
export function displayHostPath(path: string): string {
  return stringText(path);
}

/** A name quoted inside a sentence: `'out/report.json'`, `'r\xff.txt'`. */
export function quotedName(name: string): string {
  return `'${displayName(name)}'`;
}
