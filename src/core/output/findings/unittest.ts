/**
 * Python unittest's text runner: `FAIL: test_x (module.Class.test_x)` blocks
 * (each a traceback closed by `AssertionError: 5 != 4`), then `Ran 5 tests in
 * 0.001s` and `FAILED (failures=2, errors=1, skipped=1)` or `OK (skipped=1)`.
 *
 * A failure's location is the frame of the test method itself (where the
 * assertion sits), else the innermost frame; its message is the block's last
 * exception line, the one that ended the test.
 */
import { clipMessage } from './finding-text.js';
import { FailureList, itemCap } from './finding-lists.js';
import type { FindingParser, TestFailure, TestSummaryFinding } from './finding-types.js';
import { isChainNote, parseExceptionLine, parseFrame, type PythonFrame } from './python-frames.js';

const HEADER = /^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([^)]*)\)(.*)$/;
const RAN = /^Ran (\d{1,9}) tests? in /;
const VERDICT = /^(OK|FAILED)(?: \(([^)]*)\))?$/;

/** `awaitingException`: a frame was read and its exception line not yet; later unindented lines (a diff) are not exceptions. */
type Open = { failure: TestFailure; method: string; ownFrame?: PythonFrame; lastFrame?: PythonFrame; message?: string; awaitingException: boolean };

export const parseUnittest: FindingParser = (lines, options) => {
  const failures = new FailureList(itemCap(options));
  let open: Open | null = null;
  let ran: number | null = null;
  let verdict: Map<string, number> | null = null;

  const close = () => {
    if (!open) return;
    const frame = open.ownFrame ?? open.lastFrame;
    if (frame) open.failure.location = { file: frame.file, line: frame.line };
    if (open.message !== undefined) open.failure.message = open.message;
    failures.add(open.failure);
    open = null;
  };

  for (const line of lines) {
    const header = HEADER.exec(line);
    if (header) {
      close();
      // An ERROR block is a test that raised, not one whose assertion failed: it reads ERROR, as unittest says.
      const failure: TestFailure = {
        name: testName(header[2] ?? '', header[3] ?? '', header[4] ?? ''),
        ...(header[1] === 'ERROR' ? { outcome: 'error' as const } : {}),
      };
      open = { failure, method: header[2] ?? '', awaitingException: false };
      continue;
    }
    if (line.startsWith('=====') || line.startsWith('-----')) {
      // `----` separates a block's header from its traceback and closes the last block.
      if (open && open.lastFrame === undefined && open.message === undefined) continue;
      close();
      continue;
    }
    const ranMatch = RAN.exec(line);
    if (ranMatch) {
      close();
      ran = Number(ranMatch[1]);
      continue;
    }
    if (ran !== null && verdict === null) {
      const verdictMatch = VERDICT.exec(line);
      if (verdictMatch) verdict = parseVerdict(verdictMatch[2] ?? '');
    }
    if (open) readBlockLine(open, line);
  }
  close();
  if (ran === null && failures.count === 0) return null;
  return summaryFinding(ran, verdict, failures);
};

/** Python 3.11+ prints the full id in parentheses; older ones print only the class. */
function testName(method: string, inParens: string, rest: string): string {
  const id = inParens.endsWith(`.${method}`) ? inParens : `${inParens}.${method}`;
  return `${id}${rest.trimEnd()}`;
}

function readBlockLine(open: Open, line: string): void {
  const frame = parseFrame(line);
  if (frame) {
    open.lastFrame = frame;
    open.awaitingException = true;
    if (frame.fn === open.method) open.ownFrame = frame;
    return;
  }
  if (isChainNote(line) || line.startsWith('Traceback ')) return;
  const exception = parseExceptionLine(line);
  if (!exception || !open.awaitingException) return;
  open.message = clipMessage(exception.message ? `${exception.type}: ${exception.message}` : exception.type);
  open.awaitingException = false;
}

function parseVerdict(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const part of text.split(',')) {
    const [key, value] = part.split('=');
    if (key && value && /^\d{1,9}$/.test(value.trim())) counts.set(key.trim(), Number(value));
  }
  return counts;
}

function summaryFinding(ran: number | null, verdict: Map<string, number> | null, failures: FailureList): TestSummaryFinding {
  const failed = verdict?.get('failures') ?? failures.count;
  const errors = verdict?.get('errors') ?? 0;
  const finding: TestSummaryFinding = {
    kind: 'test-summary',
    tool: 'unittest',
    failed,
    errors,
    failures: failures.items,
    more: failures.more(failed + errors),
  };
  if (ran !== null && verdict !== null) {
    const skipped = verdict.get('skipped') ?? 0;
    const other = (verdict.get('expected failures') ?? 0) + (verdict.get('unexpected successes') ?? 0);
    finding.skipped = skipped;
    finding.passed = Math.max(0, ran - failed - errors - skipped - other);
  }
  return finding;
}
