import type { JobOutcome } from '../provider.js';
import type { ResultStatus } from '../status.js';
import type { LimitHit } from '../store/sqlite-store.js';

/** Why the engine aborted a job. Never the output budget: it caps capture, not the job (#12 item 2). */
export type AbortReason = 'timeout' | 'cancelled';

/**
 * Pure: the job's status from the provider's raw facts and why the engine
 * aborted it. Precedence is fixed: cancelled > timeout > resource_exhausted >
 * the exit status. OOM comes only from the kernel's own counter
 * (`oomKilled`), never from exit 137 — a job may exit 137 by itself.
 */
export function classifyOutcome(
  outcome: JobOutcome,
  abortReason: AbortReason | null,
  stopRequested: boolean,
): { status: ResultStatus; limitHit: LimitHit | null } {
  if (outcome.stopped || stopRequested || abortReason === 'cancelled') return { status: 'cancelled', limitHit: null };
  if (abortReason === 'timeout') return { status: 'timeout', limitHit: 'wall_clock' };
  if (outcome.oomKilled) return { status: 'resource_exhausted', limitHit: 'memory' };
  if (outcome.exitCode === 0 && outcome.signal === null) return { status: 'success', limitHit: null };
  return { status: 'failure', limitHit: null };
}
