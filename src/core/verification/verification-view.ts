/**
 * How a job's verification reads in its result (#16): one key finding with
 * the verdict, the evidence of the check that decided it FIRST among the
 * evidence, the summary naming that check, and the block itself (each
 * check, its outcome, the digest of its evidence) for JSON readers in
 * provenance.verification.
 */
import { nextAction } from '../next-action.js';
import { attentionItem, type AttentionItem, type Evidence } from '../result/result-package.js';
import type { CheckResult, VerificationBlock } from './verification.js';

/** The check that decided a failed, faulted or cancelled verdict: the first with that outcome. */
export function decidingCheck(block: VerificationBlock): { check: CheckResult; index: number } | null {
  const wanted = block.outcome === 'failed' ? 'failed' : block.outcome === 'fault' ? 'fault' : block.outcome === 'cancelled' ? 'cancelled' : null;
  if (wanted === null) return null;
  const index = block.checks.findIndex((c) => c.outcome === wanted);
  return index < 0 ? null : { check: block.checks[index]!, index };
}

/**
 * The order checks are numbered in: the order they are judged (planChecks),
 * each kind in the order given. The faces take the three kinds as separate
 * lists (the CLI's parser keeps no order across --verify, --expect-file and
 * --expect-output), so a check is also named by its place among its own
 * kind, which is the order the caller gave: "verify 2 of 2" is the second
 * --verify whatever came between.
 */
export const CHECK_ORDER = 'numbered as judged: expect-output, then expect-file, then verify checks, each kind in the order given';

function label(checks: readonly CheckResult[], index: number): string {
  const check = checks[index]!;
  const shown = check.check.length > 80 ? `${check.check.slice(0, 80)}…` : check.check;
  const ofKind = checks.filter((c) => c.kind === check.kind).length;
  // One kind only: the numbering is already the order given.
  if (ofKind === checks.length) return `check ${index + 1} of ${checks.length} (${check.kind} ${shown})`;
  const nth = checks.slice(0, index + 1).filter((c) => c.kind === check.kind).length;
  return `check ${index + 1} of ${checks.length} (${check.kind} ${nth} of ${ofKind}: ${shown})`;
}

/** The order note, where a check is named and several kinds make the numbering differ from a kind's own. */
function orderNote(checks: readonly CheckResult[]): string {
  return new Set(checks.map((c) => c.kind)).size > 1 ? ` (${CHECK_ORDER})` : '';
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
      return `verification ${block.outcome === 'fault' ? 'reached no verdict (verifier fault)' : block.outcome}: ${label(block.checks, deciding!.index)}: ${deciding!.check.detail}; ${passed} of ${total} passed${orderNote(block.checks)}`;
  }
}

/** The deciding check's evidence, to go first in the result. */
export function verificationEvidence(block: VerificationBlock, jobId: string): Evidence | null {
  const deciding = decidingCheck(block);
  if (deciding === null) return null;
  const { check, index } = deciding;
  const excerpt = check.excerpt ?? '';
  return {
    label: `${label(block.checks, index)}: ${check.outcome}`,
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
  const named = label(block.checks, deciding.index);
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

/** Why a fault could not answer and what would let it, from the facts run-checks records (its exit code, and its own detail wording). */
function faultRemedy(check: CheckResult, wallClockSeconds: number): string {
  if (check.exit_code === 127)
    return "its program is not on the workspace's PATH: check the command's spelling, or use a profile that has it (plan lists what a profile offers)";
  if (check.exit_code === 126) return 'its program is not executable: make it executable (chmod +x) or run it through its interpreter (sh FILE, python3 FILE)';
  if (/time allowance/.test(check.detail))
    return `the checks share one time allowance, the workspace's wall clock (${wallClockSeconds} s): run them in a workspace created with a longer wall clock, or make the check faster`;
  if (/never searched/.test(check.detail))
    return 'the output budget cut the kept output before the pattern was found: run again in a workspace with a larger output budget, or print less';
  if (/memory budget/.test(check.detail)) return 'the check needs more memory than the workspace allows: run it in a workspace with a larger memory budget';
  return 'nothing judged it: run it again once the cause in its detail is fixed';
}

/** How much of a job's log a verdict's next action reads: bounded, as the logs verb's default page. */
const LOG_TAIL_LINES = 200;

/**
 * What to do next about a failed or inconclusive verdict (#16 review): look
 * at the evidence the deciding check's verdict rests on, read every check's
 * outcome and evidence digest in the job's receipt, and, for a fault, what
 * would let the check answer.
 */
export function verificationAttention(
  block: VerificationBlock,
  about: { jobId: string; workspaceId: string; wallClockSeconds: number; hasReceipt: boolean; outputShownWhole: boolean },
): AttentionItem[] {
  const deciding = decidingCheck(block);
  if (deciding === null || (block.outcome !== 'failed' && block.outcome !== 'fault')) return [];
  const { check, index } = deciding;
  const named = label(block.checks, index);
  const ids = { workspace_id: about.workspaceId, job_id: about.jobId };
  const items: AttentionItem[] = [];
  // Reading the log is offered only when the result did not already show all of it, and as a bounded read.
  const readLog = about.outputShownWhole ? undefined : nextAction('logs', { jobId: about.jobId, tail: LOG_TAIL_LINES });
  if (check.kind === 'expect-output') {
    if (readLog)
      items.push(
        attentionItem('next-step', `the output ${named} searched is cut above; to read its last ${LOG_TAIL_LINES} lines`, { ...ids, action: readLog }),
      );
  } else if (check.kind === 'expect-file') {
    const dir = check.check
      .replace(/=sha256:[0-9a-f]+$/, '')
      .split('/')
      .slice(0, -1)
      .join('/');
    items.push(
      attentionItem('next-step', `to see what is where ${named} looked`, {
        ...ids,
        action: nextAction('ls-files', { workspaceId: about.workspaceId, ...(dir === '' ? {} : { path: dir }) }),
      }),
    );
  } else if (readLog)
    items.push(
      attentionItem('next-step', `the output of ${named} is the first evidence; the job's own output is cut above, to read its last ${LOG_TAIL_LINES} lines`, {
        ...ids,
        action: readLog,
      }),
    );
  if (about.hasReceipt)
    items.push(
      attentionItem('next-step', "to see every check's outcome and evidence digest, as the job's receipt binds them", {
        ...ids,
        action: nextAction('receipt', { jobId: about.jobId }),
      }),
    );
  if (block.outcome === 'fault') items.push(attentionItem('remedy', `${named} reached no verdict: ${faultRemedy(check, about.wallClockSeconds)}`, ids));
  return items;
}
