import type { JobOutcome } from '../provider.js';
import { settleRun, type RunFact } from '../run/run-machine.js';
import type { ResultStatus } from '../status.js';
import type { LimitHit } from '../store/sqlite-store.js';

/** Why the engine aborted a job. Never the output budget: it caps capture, not the job (#12 item 2). */
export type AbortReason = 'timeout' | 'cancelled';

/**
 * The facts of a job the provider ran to its end, in the order the engine
 * observed them: the abort (wall clock or the caller's) and a recorded stop
 * all come before the exit the provider then reported.
 */
export function factsOfOutcome(outcome: JobOutcome, abortReason: AbortReason | null, stopRequested: boolean, canceller = 'the caller'): RunFact[] {
  const facts: RunFact[] = [{ kind: 'launched' }];
  if (stopRequested) facts.push({ kind: 'stop-requested' });
  if (abortReason === 'cancelled') facts.push({ kind: 'caller-aborted', by: canceller });
  if (abortReason === 'timeout') facts.push({ kind: 'wall-clock' });
  facts.push({ kind: 'exited', exitCode: outcome.exitCode, signal: outcome.signal, oomKilled: outcome.oomKilled, stopped: outcome.stopped });
  return facts;
}

/**
 * Pure: the job's status from the provider's raw facts and why the engine
 * aborted it, by the run machine's rules (run/run-machine.ts). Precedence is
 * fixed: cancelled > timeout > resource_exhausted > the exit status. OOM
 * comes only from the kernel's own counter (`oomKilled`), never from exit
 * 137 — a job may exit 137 by itself.
 */
export function classifyOutcome(
  outcome: JobOutcome,
  abortReason: AbortReason | null,
  stopRequested: boolean,
): { status: ResultStatus; limitHit: LimitHit | null } {
  const end = settleRun(factsOfOutcome(outcome, abortReason, stopRequested))!;
  return { status: end.status, limitHit: end.limitHit };
}
