/**
 * Runs every finding parser over one job's output (#13 item 3).
 *
 * The text is split once into bounded, cleaned lines (see `splitLines`), then
 * each parser reads them. Parsers are pure and written not to throw; a parser
 * that throws anyway is treated as having found nothing, so one format's bug
 * can never cost the caller its result (the caller then falls back to the
 * excerpt, as it does for output in no known format).
 *
 * Order of the findings: test summaries, then diagnostics, then the
 * exception. A Python exception is dropped when a test summary was found:
 * unittest and pytest print tracebacks for every failure, and the failures
 * already name them.
 */
import { parseCargoTest } from './cargo-test.js';
import { parseEslint } from './eslint.js';
import { parseGccClang } from './gcc-clang.js';
import { parseGoBuild } from './go-build.js';
import { parseGoTest } from './go-test.js';
import { parseJest, parseVitest } from './jest-vitest.js';
import { parseNodeTest } from './node-test.js';
import { parsePytest } from './pytest.js';
import { parsePythonSyntax } from './python-syntax.js';
import { parsePythonTraceback } from './python-traceback.js';
import { parseRustc } from './rustc.js';
import { parseTap } from './tap.js';
import { parseTsc } from './tsc.js';
import { parseUnittest } from './unittest.js';
import { splitLines } from './finding-text.js';
import type { Finding, FindingOptions, FindingParser } from './finding-types.js';

const TEST_PARSERS: readonly FindingParser[] = [parsePytest, parseUnittest, parseNodeTest, parseTap, parseVitest, parseJest, parseGoTest, parseCargoTest];
const DIAGNOSTIC_PARSERS: readonly FindingParser[] = [parseGccClang, parseTsc, parseRustc, parseEslint, parsePythonSyntax, parseGoBuild];

export function parseFindings(text: string, options: FindingOptions): Finding[] {
  const lines = splitLines(text);
  const tests = runAll(TEST_PARSERS, lines, options);
  const diagnostics = runAll(DIAGNOSTIC_PARSERS, lines, options);
  const exception = tests.length ? [] : runAll([parsePythonTraceback], lines, options);
  return [...tests, ...diagnostics, ...exception];
}

function runAll(parsers: readonly FindingParser[], lines: readonly string[], options: FindingOptions): Finding[] {
  const found: Finding[] = [];
  for (const parse of parsers) {
    try {
      const finding = parse(lines, options);
      if (finding) found.push(finding);
    } catch {
      // A parser bug must not cost the result: this format simply yields no finding.
    }
  }
  return found;
}
