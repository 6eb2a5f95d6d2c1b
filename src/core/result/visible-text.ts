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
 * separators, which move or break what is drawn; and every character that
 * draws nothing yet reaches a model reading the text: the format characters
 * (Cf: zero-width spaces and joiners, the BOM, the soft hyphen, tags,
 * interlinear marks) and the default-ignorable ones (variation selectors,
 * fillers, invisible operators), as file names already are (name-text.ts).
 * A red team hid an instruction in tag characters, then in a run of 56
 * variation selectors after an emoji. One emoji variation selector right
 * after a visible character is kept (keptSelector): a heart is drawn with one.
 */
const FORMAT_CHARS = '\\p{Cf}\\p{Default_Ignorable_Code_Point}\\u061c\\u2028\\u2029';
/** C0 controls except tab and newline, DEL, C1 controls, and FORMAT_CHARS (by code point: property escapes need the `u` flag). */
const TERMINAL_UNSAFE = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${FORMAT_CHARS}]`, 'gu');
/** The invisible characters the markdown cleaners also show (see sanitize-text.ts); a pattern built from it needs the `u` flag. */
export const FORMAT_CHAR_PATTERN = new RegExp(`[${FORMAT_CHARS}]`, 'gu');
const INVISIBLE_ONE = new RegExp(`^[${FORMAT_CHARS}]$`, 'u');

/**
 * True for an emoji variation selector (U+FE0E, U+FE0F) that a visible
 * character right before it draws with: the one such selector is kept where
 * every other invisible character is shown as an escape. `offset` is where
 * `ch` stands in `text` (a replace callback's arguments).
 */
export function keptSelector(ch: string, offset: number, text: string): boolean {
  if (ch !== '\ufe0e' && ch !== '\ufe0f') return false;
  if (offset === 0) return false;
  const before = text.codePointAt(offset - 1) ?? 0;
  // A low surrogate before: read the whole code point it ends.
  const previous = before >= 0xdc00 && before <= 0xdfff && offset >= 2 ? String.fromCodePoint(text.codePointAt(offset - 2)!) : String.fromCodePoint(before);
  return !INVISIBLE_ONE.test(previous) && previous !== '\n' && previous.charCodeAt(0) > 0x20;
}

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
  return isTerminalUnsafe(text)
    ? text.replace(TERMINAL_UNSAFE, (ch: string, offset: number, whole: string) => (keptSelector(ch, offset, whole) ? ch : escapeChar(ch)))
    : text;
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
