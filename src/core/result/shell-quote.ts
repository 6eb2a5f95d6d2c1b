/**
 * How a suggested command is shown to a reader who will paste it into a
 * shell. It lives beside visible-text.ts because both must show the same
 * invisible characters as escapes; before, it sat in context.ts, which made
 * invocation.ts and the markdown renderer import the engine's context (a
 * back-arrow inside core) for one pure function.
 */
import { FORMAT_CHAR_PATTERN } from './visible-text.js';

/** Quotes a word for a POSIX shell only when it needs it. */
export function shellQuote(word: string): string {
  if (word === '') return "''";
  if (/^[A-Za-z0-9_\-+=.,/:@%^]+$/.test(word)) return word;
  // Controls and bidi characters (a job names its files) go in $'…' as escapes, so a
  // pasted command stays one visible, correct line (#10 item 11).
  if (SHELL_UNSAFE.test(word)) return `$'${word.replace(SHELL_ESCAPED, shellEscape)}'`;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One character inside $'…': bash reads \\xHH as a raw byte, so anything past ASCII goes as \\uHHHH (its UTF-8). */
function shellEscape(ch: string): string {
  const named: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\t': '\\t', '\r': '\\r' };
  const code = ch.codePointAt(0)!;
  // bash's $'…' reads \UHHHHHHHH past U+FFFF.
  if (named[ch] === undefined && code > 0xffff) return `\\U${code.toString(16).padStart(8, '0')}`;
  return named[ch] ?? (code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

const SHELL_UNSAFE = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${FORMAT_CHAR_PATTERN.source.slice(1, -1)}]`, 'u');
const SHELL_ESCAPED = new RegExp(`[\\\\'\\x00-\\x1f\\x7f-\\x9f${FORMAT_CHAR_PATTERN.source.slice(1, -1)}]`, 'gu');
