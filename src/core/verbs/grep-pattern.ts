/**
 * The `logs --grep` matcher. Job output is hostile and the pattern comes from
 * whoever asks, so matching must not be able to freeze the engine: with a
 * backtracking engine, a 260 KB line of words and `(\w+\s?)*$` held a core at
 * 100% for over 30 s, and under the MCP server that blocked every session
 * (#10 item 9). RE2 (the pure-JS port `re2js`, nothing to compile) matches
 * in time linear in the line, and each line is searched only up to
 * GREP_LINE_MAX_CHARS, so one call costs at most linear time in the log.
 */
import type { RE2JS } from 're2js';
import { re2 } from '../re2.js';
import { EngineError } from '../errors.js';

/** Only this much of each line is searched (65,536 UTF-16 units); a match further in is not found. */
export const GREP_LINE_MAX_CHARS = 64 * 1024;

const UNSUPPORTED_HINT =
  'patterns use RE2 syntax (linear time): backreferences (\\1, \\k<name>) and lookaround ((?=…), (?!…), (?<=…), (?<!…)) are not supported; match a wider pattern and read the lines around it by line numbers (lines A:B)';

/** Backreferences and lookaround: valid in JavaScript or PCRE, refused by RE2 on purpose. */
const UNSUPPORTED_SYNTAX = /\\[1-9]|\\k<|\(\?<?[=!]/;

const SYNTAX_HINT =
  'the pattern is a regular expression: escape a literal ( ) [ ] { } * + ? | . ^ $ or \\ with a backslash (e.g. f\\(x\\) for the text f(x)), and close every ( and [';

/** Compiles `source` into a per-line test, or throws BAD_ARGUMENT naming what RE2 does not accept. */
export function compileGrepPattern(source: string): (line: string) => boolean {
  let compiled: RE2JS;
  try {
    compiled = re2().RE2JS.compile(source);
  } catch (cause) {
    if (!(cause instanceof re2().RE2JSException)) throw cause;
    const reason = cause.message.replace(/^error parsing regexp: /, '');
    // Told apart by the pattern itself, not by re2js's wording: an RE2 gap gets the RE2 hint, a slip the syntax one (#12 item 13).
    const hint = UNSUPPORTED_SYNTAX.test(source) ? UNSUPPORTED_HINT : SYNTAX_HINT;
    throw new EngineError('BAD_ARGUMENT', `the grep pattern '${clipForMessage(source)}' is not one headspace can match: ${clipForMessage(reason, 120)}`, {
      hint,
      cause,
    });
  }
  return (line) => compiled.matcher(line.length > GREP_LINE_MAX_CHARS ? line.slice(0, GREP_LINE_MAX_CHARS) : line).find();
}

function clipForMessage(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
