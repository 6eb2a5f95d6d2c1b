/**
 * `go test`, plain or `-v`, and `go test -json` (whose `Output` fields carry
 * the same text, so they are unwrapped and read the same way).
 *
 * Failing tests are `--- FAIL: TestX (0.00s)` lines (subtests indented, with
 * their parent failing too: a parent whose subtest failed is not listed
 * again). A test's message is its first `    file_test.go:19: text` log line
 * (printed under the header, or above it under `-v`), which also gives the
 * location; a panic gives `panic: …` and the first `_test.go` frame.
 */
import { clipMessage, parseLocation } from './finding-text.js';
import { FailureList, itemCap } from './finding-lists.js';
import type { FindingParser, SourceLocation, TestFailure, TestSummaryFinding } from './finding-types.js';

const RESULT = /^\s*--- (FAIL|PASS|SKIP): (\S+) \([\d.]+s\)$/;
const RUN = /^=== (?:RUN|CONT|PAUSE) +(\S+)$/;
const LOG_LINE = /^\s+([\w.-]+\.go):(\d{1,9}): (.*)$/;
const PANIC_FRAME = /^\t(\S+_test\.go:\d{1,9}) \+0x/;
const PACKAGE_FAIL = /^FAIL\t\S+/;
const PACKAGE_OK = /^ok {2}\t?\S+/;

type Info = { message?: string; location?: SourceLocation };

export const parseGoTest: FindingParser = (rawLines, options) => {
  const lines = unwrapJson(rawLines);
  const info = new Map<string, Info>();
  const failedNames: string[] = [];
  let sawPackageLine = false;
  let passed = 0;
  let skipped = 0;
  let current: string | null = null;
  let panicking: string | null = null;

  const note = (name: string, message: string, location?: SourceLocation) => {
    const entry = info.get(name) ?? {};
    if (entry.message !== undefined) return;
    entry.message = clipMessage(message);
    if (location) entry.location = location;
    if (info.size < 10_000 || info.has(name)) info.set(name, entry);
  };

  for (const line of lines) {
    const result = line.includes('--- ') ? RESULT.exec(line) : null;
    if (result) {
      const name = result[2] ?? '';
      current = name;
      if (result[1] === 'PASS') passed += 1;
      else if (result[1] === 'SKIP') skipped += 1;
      else failedNames.push(name);
      continue;
    }
    const run = line.startsWith('=== ') ? RUN.exec(line) : null;
    if (run) {
      current = run[1] ?? null;
      continue;
    }
    if (line.startsWith('panic: ') && current) {
      panicking = current;
      note(current, line);
      continue;
    }
    const frame = panicking ? PANIC_FRAME.exec(line) : null;
    if (frame && panicking) {
      const entry = info.get(panicking);
      const location = parseLocation(frame[1] ?? '');
      if (entry && !entry.location && location) entry.location = location;
      panicking = null;
      continue;
    }
    const log = current && line.includes('.go:') ? LOG_LINE.exec(line) : null;
    if (log && current) note(current, log[3] ?? '', { file: log[1] ?? '', line: Number(log[2]) });
    if (PACKAGE_FAIL.test(line) || PACKAGE_OK.test(line)) sawPackageLine = true;
  }
  if (failedNames.length === 0 && !sawPackageLine) return null;
  // A parent fails when a subtest did: list the subtests, not the parent again.
  const parents = new Set<string>();
  for (const name of failedNames) {
    for (let slash = name.indexOf('/'); slash > 0; slash = name.indexOf('/', slash + 1)) parents.add(name.slice(0, slash));
  }
  const failed = failedNames.filter((name) => !parents.has(name));
  const failures = new FailureList(itemCap(options));
  for (const name of failed) {
    const entry = info.get(name);
    const failure: TestFailure = { name };
    if (entry?.location) failure.location = entry.location;
    if (entry?.message !== undefined) failure.message = entry.message;
    failures.add(failure);
  }
  const finding: TestSummaryFinding = { kind: 'test-summary', tool: 'go test', failed: failed.length, failures: failures.items, more: failures.more() };
  // Plain `go test` prints only failures; passes and skips are known under -v (or -json) alone.
  if (passed + skipped > 0) {
    finding.passed = passed;
    finding.skipped = skipped;
  }
  return finding;
};

/** `go test -json` events: their `Output` text, one line per event; other lines pass through. */
function unwrapJson(lines: readonly string[]): readonly string[] {
  if (!lines.some((line) => line.startsWith('{"') && line.includes('"Action"'))) return lines;
  const out: string[] = [];
  for (const line of lines) {
    if (!line.startsWith('{"')) {
      out.push(line);
      continue;
    }
    try {
      const event: unknown = JSON.parse(line);
      const output = typeof event === 'object' && event !== null ? (event as { Output?: unknown }).Output : undefined;
      if (typeof output === 'string') out.push(output.endsWith('\n') ? output.slice(0, -1) : output);
    } catch {
      // A cut or foreign line: not an event.
    }
  }
  return out;
}
