/**
 * How a job's verification reads in its result (#16): one key finding with
 * the verdict, the evidence of the check that decided it FIRST among the
 * evidence, the summary naming that check, and the block itself (each
 * check, its outcome, the digest of its evidence) for JSON readers in
 * provenance.verification.
 */
import type { Evidence } from '../result/result-package.js';
import type { CheckResult, VerificationBlock } from './verification.js';

/** The check that decided a failed, faulted or cancelled verdict: the first with that outcome. */
export function decidingCheck(block: VerificationBlock): { check: CheckResult; index: number } | null {
  const wanted = block.outcome === 'failed' ? 'failed' : block.outcome === 'fault' ? 'fault' : block.outcome === 'cancelled' ? 'cancelled' : null;
  if (wanted === null) return null;
  const index = block.checks.findIndex((c) => c.outcome === wanted);
  return index < 0 ? null : { check: block.checks[index]!, index };
}

function label(check: CheckResult, index: number, total: number): string {
  const shown = check.check.length > 80 ? `${check.check.slice(0, 80)}…` : check.check;
  return `check ${index + 1} of ${total} (${check.kind} ${shown})`;
}

/** One line: the verdict and its reason. */
export function verificationFinding(block: VerificationBlock): string | null {
  const total = block.checks.length;
  if (total === 0) return null;
  const passed = block.checks.filter((c) => c.outcome === 'passed').length;
  const deciding = decidingCheck(block);
  switch (block.outcome) {
    case 'passed':
      return `verification passed: ${passed} of ${total} check${total === 1 ? '' : 's'} passed`;
    case 'skipped':
      return `verification skipped: ${block.checks[0]!.detail}`;
    case 'none':
      return null;
    case 'failed':
    case 'fault':
    case 'cancelled':
      return `verification ${block.outcome === 'fault' ? 'reached no verdict (verifier fault)' : block.outcome}: ${label(deciding!.check, deciding!.index, total)}: ${deciding!.check.detail}; ${passed} of ${total} passed`;
  }
}

/** The deciding check's evidence, to go first in the result. */
export function verificationEvidence(block: VerificationBlock, jobId: string): Evidence | null {
  const deciding = decidingCheck(block);
  if (deciding === null) return null;
  const { check, index } = deciding;
  const excerpt = check.excerpt ?? '';
  return {
    label: `${label(check, index, block.checks.length)}: ${check.outcome}`,
    kind: excerpt === '' ? 'fact' : 'excerpt',
    source: jobId,
    truncated: false,
    excerpt: excerpt === '' ? `${check.detail}${check.evidence_sha256 ? ` (evidence ${check.evidence_sha256})` : ''}` : excerpt,
  };
}

/** The summary of a job whose verdict changed its status. */
export function verifiedSummary(what: string, block: VerificationBlock): string | null {
  const deciding = decidingCheck(block);
  if (deciding === null) return null;
  const named = label(deciding.check, deciding.index, block.checks.length);
  if (block.outcome === 'failed') return `${what} and exited 0, but ${named} failed: ${deciding.check.detail}`;
  if (block.outcome === 'fault') return `${what} and exited 0, but ${named} could not reach a verdict: ${deciding.check.detail} (inconclusive)`;
  return null;
}

/** The block as results and receipts carry it, each check's fields in the schema's order; the excerpt stays out (it is evidence text, not a verdict). */
export function verificationRecord(block: VerificationBlock): VerificationBlock {
  return {
    outcome: block.outcome,
    checks: block.checks.map((c) => ({
      kind: c.kind,
      check: c.check,
      outcome: c.outcome,
      detail: c.detail,
      evidence_sha256: c.evidence_sha256,
      ...(c.exit_code === undefined ? {} : { exit_code: c.exit_code }),
    })),
  };
}
