/**
 * Findings as markdown list items: one compact line per fact, the counts
 * first, then each listed failure or diagnostic, then how many were left out.
 *
 *   tests: 6 failed, 1 error, 3 passed, 1 skipped (pytest)
 *   FAILED test_calc.py:11 test_add_negative — assert -2 == -3
 *   diagnostics: 5 errors (tsc)
 *   error src/a.ts:1:14 TS2322 Type 'string' is not assignable to type 'number'.
 *   exception ZeroDivisionError: division by zero at stats.py:2
 */
import { formatLocation } from './finding-text.js';
import type { Diagnostic, Finding, TestFailure, TestSummaryFinding } from './finding-types.js';

export function findingLines(findings: readonly Finding[]): string[] {
  const lines: string[] = [];
  for (const finding of findings) {
    switch (finding.kind) {
      case 'test-summary':
        lines.push(testCounts(finding), ...finding.failures.map(failureLine));
        if (finding.more > 0) lines.push(`… and ${finding.more} more failing ${plural(finding.more, 'test')} (${finding.tool})`);
        break;
      case 'diagnostics':
        lines.push(
          `diagnostics: ${counted([
            [finding.errors, 'error'],
            [finding.warnings, 'warning'],
          ])} (${finding.tool})`,
          ...finding.items.map(diagnosticLine),
        );
        if (finding.more > 0) lines.push(`… and ${finding.more} more ${plural(finding.more, 'diagnostic')} (${finding.tool})`);
        break;
      case 'exception': {
        const where = finding.location ? ` at ${formatLocation(finding.location)}` : '';
        lines.push(`exception ${finding.type}${finding.message ? `: ${finding.message}` : ''}${where}`);
        break;
      }
    }
  }
  return lines;
}

function testCounts(finding: TestSummaryFinding): string {
  const parts: Array<[number | undefined, string]> = [
    [finding.failed, 'failed'],
    [finding.errors, 'error'],
    [finding.passed, 'passed'],
    [finding.skipped, 'skipped'],
  ];
  // Failures are always stated, even as 0; the other counts only when the tool printed a non-zero one.
  const shown = parts.filter(([count], index) => index === 0 || (count !== undefined && count > 0));
  return `tests: ${shown.map(([count, word]) => (word === 'error' ? `${count} ${plural(count ?? 0, 'error')}` : `${count} ${word}`)).join(', ')} (${finding.tool})`;
}

function failureLine(failure: TestFailure): string {
  const where = failure.location ? `${formatLocation(failure.location)} ` : '';
  return `${failure.outcome === 'error' ? 'ERROR' : 'FAILED'} ${where}${failure.name}${failure.message ? ` — ${failure.message}` : ''}`;
}

function diagnosticLine(item: Diagnostic): string {
  const where = formatLocation({ file: item.file, line: item.line, ...(item.col === undefined ? {} : { col: item.col }) });
  return `${item.severity} ${where}${item.code ? ` ${item.code}` : ''} ${item.message}`;
}

function counted(parts: Array<[number, string]>): string {
  const shown = parts.filter(([count]) => count > 0);
  return (shown.length ? shown : parts.slice(0, 1)).map(([count, word]) => `${count} ${plural(count, word)}`).join(', ');
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}
