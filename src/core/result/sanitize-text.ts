/**
 * Cleaning of captured output and free text before it reaches a reader.
 *
 * Captured output is hostile by default: terminal escapes would recolour or
 * rewrite the reader's screen, NUL and other control bytes break tools that
 * read the markdown, and `\r` progress bars repeat one line thousands of times.
 * Everything here is pure and works on one line or one field at a time, so the
 * excerpt selector can stream a large log without holding it as one string.
 */

import { FORMAT_CHAR_PATTERN, escapeChar, keptSelector } from './visible-text.js';

/**
 * CSI (`ESC [ … final`), OSC (`ESC ] … BEL|ST`), DCS/SOS/PM/APC strings
 * (`ESC P|X|^|_ … ST`), two-byte escapes (`ESC x`), and the 8-bit CSI (U+009B).
 * An unterminated OSC or DCS runs to the end of the text, as a terminal would
 * swallow it.
 */
const ANSI_ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~]?)|\x9b[0-?]*[ -/]*[@-~]?/g;

/** C0 controls except tab and newline, DEL, C1 controls, and bidi/format characters (see visible-text.ts). */
const CONTROL_CHARS = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${FORMAT_CHAR_PATTERN.source.slice(1, -1)}]`, 'gu');

/** True when `text` holds anything `cleanLine` would change (a cheap pre-check). */
const NEEDS_CLEANING = new RegExp(CONTROL_CHARS.source, 'u');

/** UTF-8 size of `text`; lone surrogates count as the 3-byte U+FFFD they encode to. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** Removes terminal escape sequences (colours, cursor moves, titles, hyperlinks). */
export function stripAnsi(text: string): string {
  return text.includes('\x1b') || text.includes('\x9b') ? text.replace(ANSI_ESCAPES, '') : text;
}

/**
 * Keeps what a terminal would last have drawn for a `\r`-overwritten line:
 * the last non-empty segment. Trailing `\r` (CRLF endings) is dropped first,
 * so `done\r\n` stays `done`.
 */
export function collapseCarriageReturns(line: string): string {
  if (!line.includes('\r')) return line;
  const segments = line.split('\r');
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (segment !== undefined && segment !== '') return segment;
  }
  return '';
}

/**
 * Replaces control characters with visible stand-ins: C0 controls and DEL
 * become their Unicode control pictures (NUL → `␀`), C1 controls become U+FFFD,
 * bidi and line-separator characters their escape (`\u202e`), so text cannot
 * be reordered on screen (#10 item 11).
 * Tab and newline are kept; the caller decides what a newline means.
 */
export function replaceControlChars(text: string): string {
  return text.replace(CONTROL_CHARS, (ch: string, offset: number, whole: string) => {
    if (keptSelector(ch, offset, whole)) return ch;
    const code = ch.charCodeAt(0);
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '\u2421';
    if (code <= 0x9f) return '\uFFFD';
    return escapeChar(ch);
  });
}

/**
 * One line of captured output as a reader should see it: `\r` overwrites
 * collapsed, escapes stripped, controls made visible. Newlines inside `line`
 * are treated as controls (the caller splits lines first).
 */
export function cleanLine(line: string): string {
  if (!NEEDS_CLEANING.test(line) && !line.includes('\n')) return line;
  return replaceControlChars(stripAnsi(collapseCarriageReturns(line))).replace(/\n/g, '\u2424');
}

/** Multi-line free text cleaned line by line; newlines survive. */
export function cleanText(text: string): string {
  if (!NEEDS_CLEANING.test(text)) return text;
  return text
    .split('\n')
    .map((line) => cleanLine(line))
    .join('\n');
}

/**
 * Free text that is not captured output (summaries, findings, names): escapes
 * stripped and every control shown, `\r` included. Not collapsed as a
 * progress bar would be: collapsing let `payload.sh\rreport.json` read as
 * `report.json` (#10 item 11). Newlines survive; the caller decides.
 */
export function cleanProse(text: string): string {
  if (!NEEDS_CLEANING.test(text)) return text;
  return replaceControlChars(stripAnsi(text));
}

/** Free text flattened to one line (for `- key: value` lines): controls shown, newlines as `↵`. */
export function cleanInline(text: string): string {
  return cleanProse(text).replace(/\n/g, '\u21b5');
}

/** True when `text` needs `cleanLine`/`cleanText` at all. */
export function needsCleaning(text: string): boolean {
  return NEEDS_CLEANING.test(text);
}

/**
 * The longest prefix of `text` whose UTF-8 size is at most `maxBytes`.
 * Never splits a multi-byte character or a surrogate pair: the cut backs off
 * to the previous character boundary.
 */
export function clipUtf8(text: string, maxBytes: number): string {
  const limit = Math.max(0, Math.floor(maxBytes));
  // Each UTF-16 unit encodes to at most 3 bytes, so short text skips the encode.
  if (text.length * 3 <= limit) return text;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return text;
  let end = limit;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.toString('utf8', 0, end);
}

/** The inline note that says how much of a clipped line was left out. */
export function formatClipNote(omittedBytes: number): string {
  return `…[+${omittedBytes} bytes]`;
}

/**
 * Clips one line to `maxBytes` (note included), ending it with `…[+N bytes]`
 * where N counts the bytes of `line` left out, plus `extraOmitted` bytes the
 * caller dropped before (a giant line decoded only in part). A line that fits
 * and has no `extraOmitted` is returned unchanged. When `maxBytes` cannot even
 * hold the note, the line is cut bare.
 */
export function clipLine(line: string, maxBytes: number, extraOmitted = 0): string {
  const size = utf8Length(line);
  if (size <= maxBytes && extraOmitted === 0) return line;
  // The note for the whole size is the longest the note can be, so reserving it is safe.
  const reserve = utf8Length(formatClipNote(size + extraOmitted));
  if (reserve > maxBytes) return clipUtf8(line, maxBytes);
  const shown = clipUtf8(line, maxBytes - reserve);
  return shown + formatClipNote(size - utf8Length(shown) + extraOmitted);
}
