/**
 * `cargo test` (libtest): `test tests::above ... FAILED` lines, one
 * `---- tests::above stdout ----` block per failure holding the panic
 * (`thread 'tests::above' panicked at src/lib.rs:16:9:` then the message;
 * before Rust 1.73: `panicked at 'message', src/lib.rs:16:9`), and one
 * `test result: FAILED. 2 passed; 2 failed; 1 ignored; …` line per test
 * binary, which are summed. Under `-q` the names come from the blocks alone.
 */
import { clipMessage, parseLocation } from './finding-text.js';
import { FailureList, itemCap } from './finding-lists.js';
import type { FindingParser, TestFailure, TestSummaryFinding } from './finding-types.js';

const TEST_LINE = /^test (\S+) \.\.\. FAILED$/;
const BLOCK = /^---- (\S+) stdout ----$/;
const PANIC = /^thread '([^']*)'(?: \(\d{1,12}\))? panicked at (.*)$/;
const RESULT = /^test result: (?:ok|FAILED)\. (\d{1,9}) passed; (\d{1,9}) failed; (\d{1,9}) ignored;/;
/** `assert_eq!` prints the two sides on the lines after its message. */
const SIDE = /^\s*(left|right): (.*)$/;
const MAX_TRACKED = 10_000;

export const parseCargoTest: FindingParser = (lines, options) => {
  const byName = new Map<string, TestFailure>();
  let extra = 0;
  let totals: { passed: number; failed: number; ignored: number } | null = null;
  const failureFor = (name: string): TestFailure | null => {
    const known = byName.get(name);
    if (known) return known;
    if (byName.size >= MAX_TRACKED) {
      extra += 1;
      return null;
    }
    const created: TestFailure = { name };
    byName.set(name, created);
    return created;
  };

  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (line.startsWith('test ')) {
      const failedTest = TEST_LINE.exec(line);
      if (failedTest) failureFor(failedTest[1] ?? '');
      const result = RESULT.exec(line);
      if (result) {
        totals ??= { passed: 0, failed: 0, ignored: 0 };
        totals.passed += Number(result[1]);
        totals.failed += Number(result[2]);
        totals.ignored += Number(result[3]);
      }
      continue;
    }
    const block = line.startsWith('---- ') ? BLOCK.exec(line) : null;
    if (block) {
      failureFor(block[1] ?? '');
      continue;
    }
    const panic = line.startsWith('thread ') ? PANIC.exec(line) : null;
    if (panic) {
      const failure = byName.get(panic[1] ?? '');
      if (failure && failure.message === undefined) readPanic(failure, panic[2] ?? '', lines, i + 1);
    }
  }
  if (totals === null && byName.size === 0) return null;
  const failures = new FailureList(itemCap(options));
  for (const failure of byName.values()) failures.add(failure);
  const failed = totals?.failed ?? byName.size + extra;
  const finding: TestSummaryFinding = { kind: 'test-summary', tool: 'cargo test', failed, failures: failures.items, more: failures.more(failed) };
  if (totals) {
    finding.passed = totals.passed;
    finding.skipped = totals.ignored;
  }
  return finding;
};

function readPanic(failure: TestFailure, rest: string, lines: readonly string[], next: number): void {
  if (rest.startsWith("'")) {
    // Before Rust 1.73: panicked at 'message', src/lib.rs:16:9
    const end = rest.lastIndexOf("', ");
    const location = end > 0 ? parseLocation(rest.slice(end + 3)) : null;
    if (location) failure.location = location;
    failure.message = clipMessage(end > 0 ? rest.slice(1, end) : rest);
    return;
  }
  const location = parseLocation(rest.endsWith(':') ? rest.slice(0, -1) : rest);
  if (location) failure.location = location;
  let message = (lines[next] ?? '').trim();
  const sides: string[] = [];
  for (let i = next + 1; i < lines.length && i <= next + 2; i += 1) {
    const side = SIDE.exec(lines[i] ?? '');
    if (side) sides.push(`${side[1]}: ${side[2]}`);
  }
  if (sides.length) message = `${message} (${sides.join(', ')})`;
  if (message !== '') failure.message = clipMessage(message);
}
