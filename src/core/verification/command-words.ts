/**
 * A command written as one line of text (`run --verify 'CMD'`, a
 * `deny-command` rule) split into argv, WITHOUT a shell (#16). The words
 * follow POSIX quoting only: whitespace separates words; '…' keeps
 * everything literally; "…" keeps everything but \" and \\ (which become "
 * and \); outside quotes a backslash makes the next character literal.
 * Nothing is expanded ($VAR, globs, ~ stay as written) and no operator is
 * interpreted: an unquoted | & ; < > ( ) ` or $ is refused rather than
 * passed on as a word, because `test -f a && grep x a` silently becoming
 * one argv with a literal `&&` would check something else than was meant.
 * For shell features say so: `sh -c '…'` (the profile must have sh).
 */
import { EngineError } from '../errors.js';

const OPERATORS = new Set(['|', '&', ';', '<', '>', '(', ')', '`', '$']);

export function splitCommandWords(text: string, flag: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let i = 0;
  const refuse = (why: string, hint: string) =>
    new EngineError('BAD_ARGUMENT', `${flag} '${text.length > 60 ? `${text.slice(0, 60)}…` : text}': ${why}`, { hint });
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== null) words.push(word);
      word = null;
      i++;
    } else if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw refuse('an unclosed single quote', "close every ' (a command here is split into words, never given to a shell)");
      word = (word ?? '') + text.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      let j = i + 1;
      let part = '';
      while (j < text.length && text[j] !== '"') {
        if (text[j] === '\\' && (text[j + 1] === '"' || text[j + 1] === '\\')) {
          part += text[j + 1];
          j += 2;
        } else part += text[j++];
      }
      if (j >= text.length) throw refuse('an unclosed double quote', 'close every " (a command here is split into words, never given to a shell)');
      word = (word ?? '') + part;
      i = j + 1;
    } else if (c === '\\') {
      if (i + 1 >= text.length) throw refuse('a trailing backslash', 'remove it, or quote the text');
      word = (word ?? '') + text[i + 1];
      i += 2;
    } else if (OPERATORS.has(c)) {
      throw refuse(
        `'${c}' is a shell operator, and this command is not run by a shell`,
        `quote it to pass it as text, or ask for a shell yourself: ${flag} "sh -c 'test -f out.txt && grep -q ok out.txt'"`,
      );
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  if (word !== null) words.push(word);
  if (words.length === 0) throw refuse('no command', `for example ${flag} 'python3 -m pytest -q'`);
  return words;
}
