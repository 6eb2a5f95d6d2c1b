/**
 * The join of a batch (#16), pure: given where each member stands, has the
 * strategy decided, and with what status and winners? Members are ordered by
 * their durable finish time (the job's recorded end), ties by job id, so the
 * same records always give the same answer, whichever process reads them.
 */
import type { ResultStatus } from '../status.js';

export const STRATEGIES = ['all', 'allSettled', 'race', 'any', 'quorum'] as const;
export type Strategy = (typeof STRATEGIES)[number];
/** The most jobs one batch lists (so a quorum is at most this too). */
export const MAX_BATCH_JOBS = 1000;

export interface MemberView {
  index: number;
  name: string;
  jobId: string | null;
  /** Terminal: its job has ended, or it never started and never will. */
  done: boolean;
  status: ResultStatus | null;
  /** The job's recorded end (or when it was skipped); null while not done. */
  finishedAt: number | null;
}

export interface JoinDecision {
  status: ResultStatus;
  /**
   * The members that carry the answer, in finish order: race's first, any's first success, quorum's first K successes,
   * all/allSettled's successes, and all's or allSettled's first failure when there is one (its status is the batch's).
   * A member here that did not succeed is shown as the deciding job: leaving all's failure out once showed a failed
   * `all` with no job marked, though race marked its failed first job and the docs promise the same for all.
   */
  winners: MemberView[];
  /** The member whose end decided the join (cleanup is timed from its recorded end). */
  decider: MemberView;
  summary: string;
  /** Set by the driver when the join did not decide by itself: a cancel, a signal to the foreground batch, or the batch's own timeout. */
  cause?: 'cancel' | 'timeout' | 'signal';
}

/** Finish order: recorded end, then job id (then name, for members that never had a job). */
export function byFinish(a: MemberView, b: MemberView): number {
  return (a.finishedAt ?? Infinity) - (b.finishedAt ?? Infinity) || (a.jobId ?? a.name).localeCompare(b.jobId ?? b.name);
}

export function decideJoin(strategy: Strategy, quorum: number | null, members: readonly MemberView[]): JoinDecision | null {
  const ended = members.filter((m) => m.done).sort(byFinish);
  const successes = ended.filter((m) => m.status === 'success');
  const failures = ended.filter((m) => m.status !== 'success');
  const pending = members.length - ended.length;
  const n = members.length;
  const name = (m: MemberView) => `${m.name}${m.jobId ? ` (job ${m.jobId})` : ''}`;
  switch (strategy) {
    case 'race': {
      const first = ended[0];
      return first ? { status: first.status!, winners: [first], decider: first, summary: `race: ${name(first)} ended first, ${first.status}` } : null;
    }
    case 'any': {
      const first = successes[0];
      if (first) return { status: 'success', winners: [first], decider: first, summary: `any: ${name(first)} succeeded first` };
      if (pending === 0) return { status: 'any_exhausted', winners: [], decider: ended[ended.length - 1]!, summary: `any: none of ${n} jobs succeeded` };
      return null;
    }
    case 'quorum': {
      const k = quorum ?? n;
      if (successes.length >= k) {
        const winners = successes.slice(0, k);
        return { status: 'success', winners, decider: winners[k - 1]!, summary: `quorum: ${k} of ${n} jobs succeeded` };
      }
      // Fails as soon as the successes still possible cannot reach K: waiting on would only spend.
      if (successes.length + pending < k)
        return {
          status: 'failure',
          winners: successes,
          decider: ended[ended.length - 1]!,
          summary: `quorum: ${k} successes needed, at most ${successes.length + pending} possible (${failures.length} of ${n} did not succeed)`,
        };
      return null;
    }
    case 'all': {
      const failed = failures[0];
      if (failed)
        return { status: failed.status!, winners: [failed], decider: failed, summary: `all: ${name(failed)} ended ${failed.status}; the rest were cancelled` };
      if (pending === 0) return { status: 'success', winners: successes, decider: ended[ended.length - 1]!, summary: `all: every one of ${n} jobs succeeded` };
      return null;
    }
    case 'allSettled': {
      if (pending > 0) return null;
      // Never disguised: one failure makes the batch's status that failure's.
      const failed = failures[0];
      return {
        status: failed ? failed.status! : 'success',
        // The first failure decided the status, so it is named among the winners (as the deciding job), in finish order.
        winners: failed ? [...successes, failed].sort(byFinish) : successes,
        decider: ended[ended.length - 1]!,
        summary: failed
          ? `allSettled: ${failures.length} of ${n} jobs did not succeed, the first ${name(failed)} (${failed.status})`
          : `allSettled: every one of ${n} jobs succeeded`,
      };
    }
  }
}
