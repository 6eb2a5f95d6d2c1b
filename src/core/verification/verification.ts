/**
 * Verification contracts (#16): exit 0 is not task success. A run may name
 * checks; after the job, each is judged by the engine from facts it
 * gathers itself (a check command's exit status, a workspace file's bytes,
 * the job's kept output matched by a caller's pattern), never from text the
 * job printed about itself — so a job that prints "verified", "PASS" or a
 * receipt of its own changes nothing.
 *
 * This module is pure: the checks as data, their validation before anything
 * is recorded, and how their outcomes decide the job's status.
 *
 * Outcomes of one check:
 * - passed: it ran and says yes;
 * - failed: it ran and says no (a check command's non-zero exit, a missing
 *   file, a digest that differs, a pattern not found in the whole output);
 * - fault: it could not reach a verdict — a check command not found (127)
 *   or not executable (126), killed (its own time allowance, the memory
 *   budget, a signal), the provider failing, or a pattern not found in
 *   output that was only partly kept (the rest was never searched);
 * - skipped: never judged, because the job itself did not succeed;
 * - cancelled: the caller or a stop ended it.
 */
import type { RE2JS } from 're2js';
import { re2 } from '../re2.js';
import { EngineError } from '../errors.js';
import { normalizeWorkspacePath } from '../paths.js';
import type { ResultStatus } from '../status.js';

/** What a run asks to be checked. Every list may be absent or empty: no checks, and success means the job's own exit 0. */
export interface VerificationRequest {
  /** Commands (argv, no shell) run after the job in the same workspace, cwd, env and policy; each must exit 0. */
  verify?: string[][];
  /** Workspace files (relative to the workspace root) that must exist as regular files, with this sha256 when given. */
  expectFiles?: Array<{ path: string; sha256?: string }>;
  /** RE2 patterns (linear time) each of which must match somewhere in the job's kept output. */
  expectOutput?: string[];
}

export type CheckKind = 'verify' | 'expect-file' | 'expect-output';
export type CheckOutcome = 'passed' | 'failed' | 'fault' | 'skipped' | 'cancelled';

/** One planned check, validated. */
export type PlannedCheck =
  { kind: 'verify'; argv: string[] } | { kind: 'expect-file'; path: string; sha256: string | null } | { kind: 'expect-output'; pattern: string };

export interface CheckResult {
  kind: CheckKind;
  /** The check as the caller gave it, in one line: the argv shell-quoted, PATH[=sha256:…], or the pattern. */
  check: string;
  outcome: CheckOutcome;
  /** One line: why this outcome. */
  detail: string;
  /** sha256 of what the verdict rests on: the check command's whole output, the file's bytes, the output searched; null when there was nothing. */
  evidence_sha256: string | null;
  /** A check command's exit status, when it exited on its own. */
  exit_code?: number;
  /** A short excerpt of the evidence for the result (never in a receipt). */
  excerpt?: string;
}

/** The whole verdict: `none` when no check was asked for. */
export type VerificationOutcome = 'none' | 'passed' | 'failed' | 'fault' | 'skipped' | 'cancelled';

export interface VerificationBlock {
  outcome: VerificationOutcome;
  checks: CheckResult[];
}

/** A run may ask for at most this many checks: each costs a process or a read. */
export const MAX_CHECKS = 32;

/**
 * Validates the request before anything is recorded (a bad pattern or path
 * is exit 1 with nothing run). Order: output patterns, then files, then
 * commands — the cheap reads first; a result lists and numbers them in this
 * order, each kind in the order given (verification-view.ts CHECK_ORDER).
 */
export function planChecks(request: VerificationRequest): PlannedCheck[] {
  const checks: PlannedCheck[] = [];
  for (const pattern of request.expectOutput ?? []) {
    compilePattern(pattern);
    checks.push({ kind: 'expect-output', pattern });
  }
  for (const file of request.expectFiles ?? []) {
    checks.push({ kind: 'expect-file', path: normalizeWorkspacePath(file.path), sha256: file.sha256 === undefined ? null : normalizeSha256(file.sha256) });
  }
  for (const argv of request.verify ?? []) {
    if (!Array.isArray(argv) || argv.length === 0 || argv[0] === '' || argv.some((a) => typeof a !== 'string' || a.includes('\0')))
      throw new EngineError('BAD_ARGUMENT', 'each verify command is an argv: a non-empty list of text arguments without NUL bytes', {
        hint: 'for example verify: [["python3", "-m", "pytest", "-q"]]; for a shell say so: ["sh", "-c", "…"]',
      });
    checks.push({ kind: 'verify', argv: [...argv] });
  }
  if (checks.length > MAX_CHECKS)
    throw new EngineError('BAD_ARGUMENT', `a run takes at most ${MAX_CHECKS} checks, not ${checks.length}`, {
      hint: 'fold several checks into one command (e.g. one test runner call)',
    });
  return checks;
}

/** RE2 (re2js): linear in the text searched, so a pattern cannot hang the engine on hostile output. Multi-line: ^ and $ match at line ends. */
export function compilePattern(pattern: string): RE2JS {
  if (typeof pattern !== 'string' || pattern === '')
    throw new EngineError('BAD_ARGUMENT', 'an expect-output pattern must be non-empty text', { hint: 'for example ^answer=\\d+$' });
  try {
    return re2().RE2JS.compile(pattern, re2().RE2JS.MULTILINE);
  } catch (cause) {
    if (!(cause instanceof re2().RE2JSException)) throw cause;
    throw new EngineError('BAD_ARGUMENT', `the expect-output pattern '${clip(pattern)}' is not one headspace can match: ${clip(cause.message, 120)}`, {
      hint: 'patterns use RE2 syntax (linear time): no backreferences or lookaround; escape a literal ( ) [ ] { } * + ? | . ^ $ or \\',
      cause,
    });
  }
}

/** `sha256:<hex>` from 64 hex digits, with or without the prefix. */
export function normalizeSha256(text: string): string {
  const match = /^(?:sha256:)?([0-9a-fA-F]{64})$/.exec(text);
  if (!match)
    throw new EngineError('BAD_ARGUMENT', `'${clip(text)}' is not a sha256 digest`, { hint: 'give 64 hex digits, with or without the sha256: prefix' });
  return `sha256:${match[1]!.toLowerCase()}`;
}

/** The verdict of all checks together: a definite failure outranks a fault; a cancel outranks both. */
export function overallOutcome(checks: readonly CheckResult[]): VerificationOutcome {
  if (checks.length === 0) return 'none';
  const has = (o: CheckOutcome) => checks.some((c) => c.outcome === o);
  if (has('cancelled')) return 'cancelled';
  if (has('failed')) return 'failed';
  if (has('fault')) return 'fault';
  if (checks.every((c) => c.outcome === 'skipped')) return 'skipped';
  return 'passed';
}

/**
 * The job's status once its checks are judged. Only a job that succeeded by
 * its own exit is judged (any other status stands, its checks skipped);
 * then: every check passed → success; one failed → failure; else a fault →
 * inconclusive (exit 9); a cancel → cancelled.
 */
export function statusAfterChecks(jobStatus: ResultStatus, outcome: VerificationOutcome): ResultStatus {
  if (jobStatus !== 'success') return jobStatus;
  switch (outcome) {
    case 'none':
    case 'passed':
    case 'skipped':
      return 'success';
    case 'failed':
      return 'failure';
    case 'fault':
      return 'inconclusive';
    case 'cancelled':
      return 'cancelled';
  }
}

function clip(text: string, max = 40): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
