/**
 * Facts lifted out of a job's output by the parsers in this folder (#13 item 3).
 *
 * A finding is what a reader would otherwise dig out of an excerpt: which tests
 * failed and where, which diagnostics a compiler or linter printed, and what
 * exception ended a Python program. Every list is capped by the caller's
 * `maxItems`; `more` counts what was left out, so "400 failures" never becomes
 * 400 lines of context.
 *
 * Semantics of optional fields: an absent count means the tool did not print
 * it (unknown), never zero; an absent location or message means the tool did
 * not print one for that item.
 */

/** Where a tool says something happened, as printed (paths are not resolved). */
export type SourceLocation = { file: string; line?: number; col?: number };

export type TestTool = 'pytest' | 'unittest' | 'node:test' | 'tap' | 'vitest' | 'jest' | 'go test' | 'cargo test';

export type TestFailure = {
  /** The test's name as the tool prints it (pytest: `Class::test[param]`, vitest: `suite > test`). */
  name: string;
  /** Where the failure happened in the test (its file:line), when the tool printed one. */
  location?: SourceLocation;
  /** The assertion or first error line. */
  message?: string;
  /** `error`: the test (or its module) errored rather than failed an assertion (pytest ERROR, unittest ERROR). Absent: failed. */
  outcome?: 'error';
};

export type TestSummaryFinding = {
  kind: 'test-summary';
  tool: TestTool;
  /** Failing tests (for pytest and unittest: failures, not errors). */
  failed: number;
  passed?: number;
  skipped?: number;
  /** Tests that errored rather than failed an assertion (pytest, unittest). */
  errors?: number;
  /** The first `maxItems` failing tests, in the order the tool printed them. */
  failures: TestFailure[];
  /** Failing tests known to exist but not listed in `failures`. */
  more: number;
};

export type DiagnosticTool = 'gcc/clang' | 'compiler' | 'mypy' | 'tsc' | 'rustc' | 'eslint' | 'python' | 'go';

export type Diagnostic = {
  file: string;
  line: number;
  col?: number;
  severity: 'error' | 'warning';
  message: string;
  /** The tool's code for the diagnostic: `TS2322`, `E0308`, `-Wunused-variable`, `no-undef`. */
  code?: string;
};

export type DiagnosticsFinding = {
  kind: 'diagnostics';
  tool: DiagnosticTool;
  /** Distinct error diagnostics (identical repeats count once). */
  errors: number;
  /** Distinct warning diagnostics. */
  warnings: number;
  /** The first `maxItems` distinct diagnostics, errors before warnings, each in printed order. */
  items: Diagnostic[];
  /** Distinct diagnostics not listed in `items`. */
  more: number;
};

export type ExceptionFinding = {
  kind: 'exception';
  language: 'python';
  /** The exception's class as printed (`ZeroDivisionError`, `json.decoder.JSONDecodeError`). */
  type: string;
  /** The text after `Type: `; empty when the exception carried none. */
  message: string;
  /** The innermost frame of the last traceback. */
  location?: SourceLocation;
};

export type Finding = TestSummaryFinding | DiagnosticsFinding | ExceptionFinding;

export type FindingOptions = {
  /** Cap on each finding's list (failures or diagnostics); at least 1. */
  maxItems: number;
};

/**
 * One parser per format family. Parsers are pure, never throw on any input,
 * and run in time linear in the number of lines (each line is already bounded
 * by `splitLines`). They return null when the text is not in their format.
 */
export type FindingParser = (lines: readonly string[], options: FindingOptions) => Finding | null;
