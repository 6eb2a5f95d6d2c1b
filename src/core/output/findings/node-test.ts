/**
 * node:test's spec reporter (the default on a terminal): `✖ name (1.2ms)`
 * lines, a closing `ℹ tests 6` / `ℹ pass 2` / `ℹ fail 3` / `ℹ skipped 1` block,
 * and (Node 20+) a `✖ failing tests:` section repeating each failure under
 * `test at file:line:col`. The section is used when present: it lists only
 * tests (never the suites that fail because a child did) with their location.
 * Without it, a `✖` line followed by a more indented error is a failure.
 */
import { indentOf, parseLocation } from './finding-text.js';
import { FailureList, itemCap } from './finding-lists.js';
import type { FindingParser, SourceLocation, TestSummaryFinding } from './finding-types.js';
import { errorMessageAt } from './js-error-message.js';

const COUNT = /^\u2139 (tests|suites|pass|fail|cancelled|skipped|todo) (\d{1,9})$/;
const FAILING_SECTION = '✖ failing tests:';

export const parseNodeTest: FindingParser = (lines, options) => {
  const counts = new Map<string, number>();
  let sectionAt = -1;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line.startsWith('ℹ ')) {
      const match = COUNT.exec(line);
      if (match) counts.set(match[1] ?? '', Number(match[2]));
    } else if (line === FAILING_SECTION) sectionAt = i;
  }
  if (!counts.has('tests')) return null;
  const failures = new FailureList(itemCap(options));
  if (sectionAt >= 0) readFailingSection(lines, sectionAt + 1, failures);
  else readMarkedFailures(lines, failures);
  const failed = counts.get('fail') ?? failures.count;
  const finding: TestSummaryFinding = {
    kind: 'test-summary',
    tool: 'node:test',
    failed,
    passed: counts.get('pass') ?? 0,
    skipped: (counts.get('skipped') ?? 0) + (counts.get('todo') ?? 0),
    failures: failures.items,
    more: failures.more(failed),
  };
  return finding;
};

/** `name (1.23ms)` or `name (1.23ms) # SKIP` after the `✖ ` marker, as the name alone. */
function markedName(line: string): string | null {
  const trimmed = line.trimStart();
  if (!trimmed.startsWith('✖ ')) return null;
  const body = trimmed.slice(2);
  const open = body.lastIndexOf(' (');
  return open > 0 && /^ \([\d.]+m?s\)/.test(body.slice(open)) ? body.slice(0, open) : body;
}

function readFailingSection(lines: readonly string[], from: number, failures: FailureList): void {
  let location: SourceLocation | null = null;
  for (let i = from; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line.startsWith('test at ')) {
      location = parseLocation(line.slice('test at '.length));
      continue;
    }
    const name = line.startsWith('✖ ') ? markedName(line) : null;
    if (name === null) continue;
    failures.add({ name, ...(location ? { location } : {}), ...messageOf(lines, i + 1) });
    location = null;
  }
}

function readMarkedFailures(lines: readonly string[], failures: FailureList): void {
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const name = line.includes('✖ ') ? markedName(line) : null;
    if (name === null) continue;
    const next = lines[i + 1] ?? '';
    const nested = next.trim() !== '' && indentOf(next) > indentOf(line) && !/^\s*[\u2714\u2716\uFE63]/.test(next);
    if (nested) failures.add({ name, ...messageOf(lines, i + 1) });
  }
}

function messageOf(lines: readonly string[], index: number): { message?: string } {
  const message = errorMessageAt(lines, index);
  return message === undefined ? {} : { message };
}
