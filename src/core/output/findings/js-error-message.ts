/**
 * The first error line of a JavaScript failure, as test runners print it:
 * `AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:`
 * announces its facts on the next line (`10 !== 12`), so a line ending in a
 * colon takes the next non-empty, non-stack line with it.
 */
import { clipMessage } from './finding-text.js';

/** Lines scanned after the first for the continuation of a `…:` message. */
const CONTINUATION_LOOKAHEAD = 4;

/** Lines scanned for the error object's `actual:` / `expected:` properties. */
const VALUES_LOOKAHEAD = 60;
const ACTUAL = /^actual: (.+?),?$/;
const EXPECTED = /^expected: (.+?),?$/;

/**
 * node's assert prints a diff headed `+ actual - expected` whose lines a
 * one-line message cannot carry; the error object dumped below it has
 * `actual: …` and `expected: …` on a line each. Those go into the message, so
 * a finding says what differed (`'$3.5'` vs `'$3.50'`), not only that
 * something did.
 */
export function errorMessageAt(lines: readonly string[], index: number): string | undefined {
  const message = firstMessageAt(lines, index);
  if (message === undefined || !(message.endsWith(':') || message.includes('+ actual - expected'))) return message;
  const values = valuesAfter(lines, index);
  return values === undefined ? message : clipMessage(`${message.replace(/ \+ actual - expected$/, '')} (${values})`);
}

function valuesAfter(lines: readonly string[], index: number): string | undefined {
  let actual: string | undefined;
  let expected: string | undefined;
  for (let i = index + 1; i < lines.length && i <= index + VALUES_LOOKAHEAD; i += 1) {
    const line = (lines[i] ?? '').trim();
    if (line.startsWith('✖ ') || line.startsWith('not ok ')) break;
    actual ??= ACTUAL.exec(line)?.[1];
    expected ??= EXPECTED.exec(line)?.[1];
    if (actual !== undefined && expected !== undefined) return `actual: ${actual}; expected: ${expected}`;
  }
  return undefined;
}

function firstMessageAt(lines: readonly string[], index: number): string | undefined {
  let first = index;
  while (first < lines.length && first < index + CONTINUATION_LOOKAHEAD && (lines[first] ?? '').trim() === '') first += 1;
  const head = (lines[first] ?? '').trim();
  if (head === '' || head.startsWith('at ')) return undefined;
  if (!head.endsWith(':')) return clipMessage(head);
  for (let i = first + 1; i < lines.length && i <= first + CONTINUATION_LOOKAHEAD; i += 1) {
    const next = (lines[i] ?? '').trim();
    if (next === '') continue;
    if (next.startsWith('at ')) break;
    return clipMessage(`${head} ${next}`);
  }
  return clipMessage(head);
}
