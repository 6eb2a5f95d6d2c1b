/**
 * ESLint's default `stylish` formatter: a file's path alone on a line, then
 * one indented line per problem, `  2:7  error  'x' is never used  no-unused-vars`
 * (columns padded with spaces; the rule is absent for parse errors), and a
 * closing `✖ 6 problems (4 errors, 2 warnings)`. A problem line counts only
 * under a file header or another problem line, so stray `1:2 error` text in
 * other output is not taken for ESLint's.
 */
import { clipMessage } from './finding-text.js';
import { DiagnosticList, itemCap } from './finding-lists.js';
import type { Diagnostic, FindingParser } from './finding-types.js';

const PROBLEM = /^\s+(\d{1,9}):(\d{1,9})\s+(error|warning)\s+(\S.*)$/;
/** Rule ids: `no-undef`, `@typescript-eslint/no-unused-vars`, `react-hooks/exhaustive-deps`. */
const RULE = /^@?[\w-]+(?:\/[\w-]+)?$/;

export const parseEslint: FindingParser = (lines, options) => {
  const list = new DiagnosticList(itemCap(options));
  let file: string | null = null;
  for (const line of lines) {
    if (line === '' || line.startsWith('✖')) {
      file = null;
      continue;
    }
    if (!line.startsWith(' ') && !line.startsWith('\t')) {
      file = line.trim();
      continue;
    }
    if (file === null) continue;
    const problem = PROBLEM.exec(line);
    if (!problem) {
      file = null;
      continue;
    }
    list.add(toDiagnostic(file, problem));
  }
  return list.toFinding('eslint');
};

function toDiagnostic(file: string, problem: RegExpExecArray): Diagnostic {
  const rest = (problem[4] ?? '').trimEnd();
  // The rule is the last column, two or more spaces after the message.
  const gap = rest.lastIndexOf('  ');
  const rule = gap > 0 ? rest.slice(gap).trim() : '';
  const hasRule = rule !== '' && RULE.test(rule);
  const diagnostic: Diagnostic = {
    file,
    line: Number(problem[1]),
    col: Number(problem[2]),
    severity: problem[3] === 'warning' ? 'warning' : 'error',
    message: clipMessage(hasRule ? rest.slice(0, gap) : rest),
  };
  if (hasRule) diagnostic.code = rule;
  return diagnostic;
}
