/**
 * The first error line of a JavaScript failure, as test runners print it:
 * `AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:`
 * announces its facts on the next line (`10 !== 12`), so a line ending in a
 * colon takes the next non-empty, non-stack line with it.
 */
import { clipMessage } from './finding-text.js';

/** Lines scanned after the first for the continuation of a `…:` message. */
const CONTINUATION_LOOKAHEAD = 4;

export function errorMessageAt(lines: readonly string[], index: number): string | undefined {
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
