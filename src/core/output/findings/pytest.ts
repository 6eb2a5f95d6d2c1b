/**
 * pytest's default report: the `FAILURES`/`ERRORS` sections (one block per
 * failing test, headed `____ name ____`, holding `E   ` assertion lines and
 * `path.py:N: Type` location lines), the `short test summary info` list
 * (`FAILED file::test - message`), and the closing `== 6 failed, 3 passed in
 * 0.5s ==` line (bare under `-q`).
 *
 * A failure's location is the first location line in the test's own file
 * (the assertion in the test, not the helper it called); its message is the
 * block's first `E` line, which pytest does not abbreviate as it does in the
 * short summary.
 */
import { clipMessage, countWords, fenceTitle } from './finding-text.js';
import { FailureList, itemCap } from './finding-lists.js';
import type { FindingParser, SourceLocation, TestFailure, TestSummaryFinding } from './finding-types.js';

type Block = { locations: SourceLocation[]; message?: string };

/** Blocks remembered for the short summary to look up; the summary lists them in the same order, so the first ones suffice. */
const MAX_BLOCKS = 2000;
const LOCATIONS_PER_BLOCK = 8;

const SUMMARY = /^\d{1,9} (?:failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?|rerun)\b.* in \d{1,9}(?:\.\d+)?s\b/;
const NO_TESTS = /^no tests ran in \d/;
const LOCATION_LINE = /^([^\s:]+\.py):(\d{1,9}):(?: |$)/;
const ASSERTION_LINE = /^E\s+(\S.*)$/;
const SHORT_ENTRY = /^(FAILED|ERROR) (\S.*)$/;
const BLOCK_PREFIX = /^(?:ERROR at (?:setup|teardown) of |ERROR collecting )/;

export const parsePytest: FindingParser = (lines, options) => {
  const cap = itemCap(options);
  const blocks = new Map<string, Block>();
  let blockCount = 0;
  let section = '';
  let block: Block | null = null;
  let counts: Map<string, number> | null = null;
  const listed = new FailureList(cap);

  for (const line of lines) {
    if (line.startsWith('=')) {
      const title = fenceTitle(line, '=');
      if (title !== null) {
        section = title;
        block = null;
        if (SUMMARY.test(title) || NO_TESTS.test(title)) counts = countWords(title);
        continue;
      }
    }
    if (SUMMARY.test(line) || (counts === null && NO_TESTS.test(line))) {
      counts = countWords(line);
      continue;
    }
    if (section === 'FAILURES' || section === 'ERRORS') {
      if (line.startsWith('_')) {
        const title = fenceTitle(line, '_');
        if (title !== null) {
          blockCount += 1;
          block = blocks.size < MAX_BLOCKS ? { locations: [] } : null;
          if (block) blocks.set(title.replace(BLOCK_PREFIX, ''), block);
          continue;
        }
      }
      if (block) readBlockLine(block, line);
    } else if (section === 'short test summary info') {
      const entry = SHORT_ENTRY.exec(line);
      if (entry) listed.add(failureFromEntry(entry[2] ?? '', blocks, entry[1] === 'ERROR'));
    }
  }

  const failures = listed.count > 0 ? listed : failuresFromBlocks(blocks, cap, blockCount);
  if (counts === null && failures.count === 0) return null;
  return summaryFinding(counts, failures);
};

function readBlockLine(block: Block, line: string): void {
  if (block.message === undefined) {
    const assertion = ASSERTION_LINE.exec(line);
    if (assertion) {
      block.message = clipMessage(assertion[1] ?? '');
      return;
    }
  }
  const location = block.locations.length < LOCATIONS_PER_BLOCK ? LOCATION_LINE.exec(line) : null;
  if (location) block.locations.push({ file: location[1] ?? '', line: Number(location[2]) });
}

/** `test_calc.py::TestStrings::test_upper - AssertionError: …` → name, file, and the block it heads. */
function failureFromEntry(entry: string, blocks: Map<string, Block>, errored: boolean): TestFailure {
  const dash = entry.indexOf(' - ');
  const nodeId = dash < 0 ? entry.trim() : entry.slice(0, dash).trim();
  const summaryMessage = dash < 0 ? undefined : entry.slice(dash + 3);
  const parts = nodeId.split('::');
  const file = parts[0] ?? nodeId;
  const name = parts.length > 1 ? parts.slice(1).join('::') : nodeId;
  const block = blocks.get(parts.length > 1 ? parts.slice(1).join('.') : nodeId);
  const location = (block ? pickLocation(block.locations, file) : undefined) ?? (parts.length > 1 ? { file } : undefined);
  const message = block?.message ?? (summaryMessage === undefined ? undefined : clipMessage(summaryMessage));
  const failure: TestFailure = { name };
  // An ERROR entry (collection, setup, teardown) is not a failed test: pytest counts it apart.
  if (errored) failure.outcome = 'error';
  if (location) failure.location = location;
  if (message !== undefined) failure.message = message;
  return failure;
}

/** The first location in the test's own file, else the last one printed (where it blew up). */
function pickLocation(locations: SourceLocation[], file: string): SourceLocation | undefined {
  return locations.find((l) => l.file === file || file.endsWith(`/${l.file}`) || l.file.endsWith(`/${file}`)) ?? locations.at(-1);
}

/** Without a short summary (`-rN`), the blocks themselves name the failures. */
function failuresFromBlocks(blocks: Map<string, Block>, cap: number, blockCount: number): FailureList {
  const list = new FailureList(cap);
  for (const [name, block] of blocks) {
    const location = block.locations[0];
    list.add({ name, ...(location ? { location } : {}), ...(block.message === undefined ? {} : { message: block.message }) });
  }
  list.count = Math.max(list.count, blockCount);
  return list;
}

function summaryFinding(counts: Map<string, number> | null, failures: FailureList): TestSummaryFinding {
  const errors = counts ? (counts.get('error') ?? 0) + (counts.get('errors') ?? 0) : undefined;
  // With pytest's own counts, a test is failed only if pytest says so (an ERROR entry is not one).
  const failed = counts ? (counts.get('failed') ?? 0) : failures.count;
  const finding: TestSummaryFinding = { kind: 'test-summary', tool: 'pytest', failed, failures: failures.items, more: failures.more(failed + (errors ?? 0)) };
  if (counts) {
    finding.passed = counts.get('passed') ?? 0;
    finding.skipped = counts.get('skipped') ?? 0;
    finding.errors = errors;
  }
  return finding;
}
