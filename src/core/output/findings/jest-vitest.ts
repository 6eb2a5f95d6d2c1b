/**
 * vitest and jest, whose reports share a shape: one block per failing test
 * with its first error line and a location, then a counts line.
 *
 * vitest: ` FAIL  file > suite > test`, the error line, ` ❯ file:line:col`,
 *         then `      Tests  3 failed | 1 passed | 1 skipped (5)`.
 * jest:   `  ● suite › test`, a blank line, the error line, a code frame,
 *         `      at Object.<anonymous> (file:line:col)`, then
 *         `Tests:       1 failed, 1 skipped, 2 passed, 4 total`.
 */
import { countWords, parseLocation, stackFrameLocation } from './finding-text.js';
import { FailureList, itemCap } from './finding-lists.js';
import type { FindingParser, SourceLocation, TestFailure, TestSummaryFinding, TestTool } from './finding-types.js';
import { errorMessageAt } from './js-error-message.js';

const VITEST_COUNTS = /^\s*Tests {2}(\d.*?)(?: \(\d{1,9}\))?$/;
const JEST_COUNTS = /^Tests:\s+(\d.*)$/;
/** A block's location is looked for this many lines below its header. */
const LOCATION_LOOKAHEAD = 40;

export const parseVitest: FindingParser = (lines, options) => {
  const failures = new FailureList(itemCap(options));
  let counts: Map<string, number> | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line.startsWith(' FAIL  ')) {
      const label = line.slice(' FAIL  '.length).trim();
      const arrow = label.indexOf(' > ');
      // `file > suite > test`; a whole file that failed to load shows `file [ file ]`.
      const name = arrow >= 0 ? label.slice(arrow + 3) : label;
      failures.add(blockFailure(lines, i, name, vitestLocation));
      continue;
    }
    const match = line.includes('Tests  ') ? VITEST_COUNTS.exec(line) : null;
    if (match) counts = countWords((match[1] ?? '').replace(/\|/g, ','));
  }
  return summaryFinding('vitest', counts, failures);
};

export const parseJest: FindingParser = (lines, options) => {
  const failures = new FailureList(itemCap(options));
  let counts: Map<string, number> | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line.startsWith('  ● ')) {
      const name = line.slice('  ● '.length).trim();
      if (name !== 'Console') failures.add(blockFailure(lines, i, name, jestLocation));
      continue;
    }
    const match = line.startsWith('Tests:') ? JEST_COUNTS.exec(line) : null;
    if (match) counts = countWords(match[1] ?? '');
  }
  return summaryFinding('jest', counts, failures);
};

function vitestLocation(line: string): SourceLocation | null {
  const trimmed = line.trimStart();
  return trimmed.startsWith('❯ ') ? parseLocation(trimmed.slice(2)) : null;
}

/**
 * Jest's frames run innermost first; the test's own frame (a `.test.`/`.spec.`
 * file or one under `__tests__`) says where the failing test is, so it wins
 * over the helper the test called.
 */
function jestLocation(line: string): SourceLocation | null {
  const location = stackFrameLocation(line);
  return location && /\.(?:test|spec)\.|__tests__\//.test(location.file) ? location : null;
}

/** The error line under a block's header and the first location before the next block. */
function blockFailure(lines: readonly string[], header: number, name: string, locate: (line: string) => SourceLocation | null): TestFailure {
  const failure: TestFailure = { name };
  const message = errorMessageAt(lines, header + 1);
  if (message !== undefined) failure.message = message;
  let fallback: SourceLocation | null = null;
  for (let i = header + 1; i < lines.length && i <= header + LOCATION_LOOKAHEAD; i += 1) {
    const line = lines[i] ?? '';
    if (line.startsWith(' FAIL  ') || line.startsWith(' PASS  ') || line.startsWith('  ● ') || line.startsWith('⎯')) break;
    const location = locate(line);
    if (location) {
      failure.location = location;
      return failure;
    }
    fallback ??= stackFrameLocation(line);
  }
  if (fallback) failure.location = fallback;
  return failure;
}

function summaryFinding(tool: TestTool, counts: Map<string, number> | null, failures: FailureList): TestSummaryFinding | null {
  if (counts === null) return null;
  const failed = counts.get('failed') ?? 0;
  return {
    kind: 'test-summary',
    tool,
    failed,
    passed: counts.get('passed') ?? 0,
    skipped: (counts.get('skipped') ?? 0) + (counts.get('todo') ?? 0),
    failures: failures.items,
    more: failures.more(failed),
  };
}
