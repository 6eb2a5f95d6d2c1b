/**
 * TypeScript's compiler, both renderings:
 * plain    `src/a.ts(1,14): error TS2322: Type 'string' is not assignable…`
 * --pretty `src/a.ts:1:14 - error TS2322: Type 'string' is not assignable…`
 * (pretty is the default on a terminal; its colours are already stripped).
 * Continuation lines of a long message (indented) are left out: the first
 * line names the problem.
 */
import { clipMessage } from './finding-text.js';
import { DiagnosticList, itemCap } from './finding-lists.js';
import type { Diagnostic, FindingParser } from './finding-types.js';

const PLAIN = /^([^\s(][^(]*)\((\d{1,9}),(\d{1,9})\): (error|warning) (TS\d{1,6}): (.*)$/;
const PRETTY = /^([^\s:][^:]*):(\d{1,9}):(\d{1,9}) - (error|warning) (TS\d{1,6}): (.*)$/;

export const parseTsc: FindingParser = (lines, options) => {
  const list = new DiagnosticList(itemCap(options));
  for (const line of lines) {
    if (!line.includes(' TS')) continue;
    const match = PLAIN.exec(line) ?? PRETTY.exec(line);
    if (!match) continue;
    const diagnostic: Diagnostic = {
      file: match[1] ?? '',
      line: Number(match[2]),
      col: Number(match[3]),
      severity: match[4] === 'warning' ? 'warning' : 'error',
      message: clipMessage(match[6] ?? ''),
      code: match[5] ?? '',
    };
    list.add(diagnostic);
  }
  return list.toFinding('tsc');
};
