/**
 * Line handling shared by the finding parsers.
 *
 * Output is hostile and may be 64 MiB: one line can be megabytes long, and a
 * log can hold millions of lines. `splitLines` therefore bounds both: each line
 * keeps its first MAX_LINE_CHARS characters (every fact the parsers look for
 * sits at a line's start), and a log of more than MAX_LINES lines keeps its
 * head and its tail (where summaries live) with one empty line between. Lines
 * are cleaned once (terminal escapes, `\r` overwrites, control characters), so
 * `tsc --pretty` or a coloured vitest run parse like plain text.
 */
import { cleanLine } from '../../result/sanitize-text.js';
import type { SourceLocation } from './finding-types.js';

export const MAX_LINE_CHARS = 4096;
export const MAX_LINES = 400_000;
/** Longest message kept in a finding: one fact, not a paragraph. */
export const MAX_MESSAGE_CHARS = 300;

export function splitLines(text: string): string[] {
  const lines: string[] = [];
  const headLimit = MAX_LINES / 2;
  let start = 0;
  while (start <= text.length && lines.length < headLimit) start = pushLine(text, start, lines);
  if (start > text.length) return lines;
  // Too many lines: find where the last MAX_LINES/2 lines begin, scanning back.
  let tailStart = text.length;
  for (let n = 0; n < MAX_LINES / 2 && tailStart > start; n += 1) {
    const newline = text.lastIndexOf('\n', tailStart - 1);
    if (newline < start) {
      tailStart = start;
      break;
    }
    tailStart = newline;
  }
  // `tailStart` sits on a newline (or at `start`): the tail begins after it.
  lines.push('');
  let position = tailStart === start ? start : tailStart + 1;
  while (position <= text.length) position = pushLine(text, position, lines);
  return lines;
}

function pushLine(text: string, start: number, lines: string[]): number {
  let end = text.indexOf('\n', start);
  if (end < 0) end = text.length;
  const raw = end - start > MAX_LINE_CHARS ? text.slice(start, start + MAX_LINE_CHARS) : text.slice(start, end);
  lines.push(cleanLine(raw));
  return end + 1;
}

/** Clips a message to MAX_MESSAGE_CHARS, trimmed, with an ellipsis when cut. */
export function clipMessage(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > MAX_MESSAGE_CHARS ? `${trimmed.slice(0, MAX_MESSAGE_CHARS - 1)}…` : trimmed;
}

/** Number of leading spaces (a tab counts as one). */
export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i += 1;
  return i;
}

/**
 * The title inside a fence line like `==== FAILURES ====` or `___ test_x ___`
 * (at least three fence characters each side, then a space), else null.
 * Hand-written because `^=+ (.+) =+$` backtracks quadratically on long lines.
 */
export function fenceTitle(line: string, fence: string): string | null {
  let left = 0;
  while (left < line.length && line[left] === fence) left += 1;
  let right = line.length;
  while (right > left && line[right - 1] === fence) right -= 1;
  if (left < 3 || line.length - right < 3 || line[left] !== ' ' || line[right - 1] !== ' ') return null;
  const title = line.slice(left + 1, right - 1).trim();
  return title === '' ? null : title;
}

const DIGITS = /^\d{1,9}$/;

/**
 * Parses `path:line`, `path:line:col` (and `file://` URLs), reading the
 * numbers from the end so paths holding colons survive. Null when the text
 * does not end in a line number.
 */
export function parseLocation(text: string): SourceLocation | null {
  let rest = text.trim();
  if (rest.startsWith('file://')) rest = rest.slice('file://'.length);
  const last = rest.lastIndexOf(':');
  if (last <= 0 || !DIGITS.test(rest.slice(last + 1))) return null;
  const lastNumber = Number(rest.slice(last + 1));
  const before = rest.slice(0, last);
  const previous = before.lastIndexOf(':');
  if (previous > 0 && DIGITS.test(before.slice(previous + 1))) {
    return { file: before.slice(0, previous), line: Number(before.slice(previous + 1)), col: lastNumber };
  }
  return { file: before, line: lastNumber };
}

/** The location inside a JavaScript stack line: `at fn (file:///a.js:3:5)` or `at /a.js:3:5`. */
export function stackFrameLocation(line: string): SourceLocation | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith('at ')) return null;
  const body = trimmed.endsWith(')') && trimmed.includes('(') ? trimmed.slice(trimmed.lastIndexOf('(') + 1, -1) : trimmed.slice(3);
  if (body.startsWith('node:') || body.includes('node_modules')) return null;
  return parseLocation(body);
}

/** `file:line` or `file:line:col`, as findings print a location. */
export function formatLocation(location: SourceLocation): string {
  if (location.line === undefined) return location.file;
  return location.col === undefined ? `${location.file}:${location.line}` : `${location.file}:${location.line}:${location.col}`;
}

/** Sums `N word` pairs in a summary line into counts keyed by word (`3 failed, 1 passed`). */
export function countWords(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of text.matchAll(/(\d{1,9}) ([a-z]+)/g)) {
    const word = match[2] ?? '';
    counts.set(word, (counts.get(word) ?? 0) + Number(match[1]));
  }
  return counts;
}
