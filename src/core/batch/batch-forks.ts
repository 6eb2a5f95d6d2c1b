/**
 * What becomes of the forks a batch made (#16, "fork N, keep one"): when the
 * batch settles, a fork is kept only when it holds an answer, and the rest
 * are destroyed through destroy (the engine's one removal path, which says
 * what the provider removed and what it could not verify). Kept:
 *  - a winner's fork: its work is the answer (seal it to propose it);
 *  - when the batch did not succeed, the fork of each job that failed by
 *    itself (not one the batch cancelled): its files and output are the
 *    evidence of why, and the result shows that output first;
 *  - every fork, when the batch was asked to keep them (keepForks).
 * Destroyed: the forks of jobs the batch cancelled or never started, and,
 * in a batch that succeeded, every fork but the winners'. Without this every
 * loser's fork outlived the batch, a full copy each, for the caller to find
 * and destroy by hand.
 */
import type { EngineContext } from '../context.js';
import type { JobRecord } from '../store/sqlite-store.js';
import type { ForkReport, GroupRecord, MemberRecord } from './batch-records.js';

export type ForkFate = { keep: true; why: string } | { keep: false };

/** Pure: whether the batch keeps a member's fork, from the decided group and the member's job record. */
export function forkFate(group: GroupRecord, member: MemberRecord, job: JobRecord | undefined): ForkFate {
  if (group.keepForks) return { keep: true, why: 'the batch was asked to keep its forks' };
  const named = (group.winners ?? []).includes(member.index);
  if (named && job?.status === 'success') return { keep: true, why: "it holds a winner's work" };
  // A deciding job that failed by itself (all's or allSettled's first failure, race's failed first job) is kept as
  // the evidence it is, in the same words as any other failure, never as work to propose.
  const failedByItself = job?.state === 'finished' && job.status !== 'success' && job.status !== 'cancelled';
  if (group.status !== 'success' && failedByItself) return { keep: true, why: `it holds the evidence of a job that ended ${job.status}` };
  if (named) return { keep: true, why: "it holds the deciding job's work" };
  return { keep: false };
}

/** At most this many forks are destroyed at once: each is a provider removal (a tree and a cgroup on native). */
const DESTROY_AT_ONCE = 4;

/**
 * Destroys the forks forkFate does not keep, once the losers are stopped. Idempotent: a successor finishing a
 * dead driver's cleanup finds a fork already destroyed and reports it so; a fork whose removal is refused or fails
 * (its job still runs, a sealed output not settled) is kept and the refusal named in `errors`.
 */
export async function settleForks(ctx: EngineContext, group: GroupRecord, members: MemberRecord[], errors: string[]): Promise<ForkReport | undefined> {
  const store = ctx.store();
  const forks = members.filter((m) => m.forkOf !== null && m.workspaceId !== null && store.getWorkspace(m.workspaceId) !== undefined);
  if (forks.length === 0) return undefined;
  const report: ForkReport = { destroyed: [], kept: [] };
  const doomed: MemberRecord[] = [];
  for (const m of forks) {
    const fate = forkFate(group, m, m.jobId ? store.getJob(m.jobId) : undefined);
    if (fate.keep) report.kept.push({ workspace_id: m.workspaceId!, member: m.name, why: fate.why });
    else if (store.getWorkspace(m.workspaceId!)!.state === 'destroyed')
      report.destroyed.push({ workspace_id: m.workspaceId!, member: m.name, removed: [], unverified: [] });
    else doomed.push(m);
  }
  const { destroyReporting } = await import('../verbs/destroy.js');
  const destroyOne = async (m: MemberRecord): Promise<void> => {
    try {
      const { removed, unverified } = await destroyReporting(ctx, { workspaceId: m.workspaceId! });
      report.destroyed.push({ workspace_id: m.workspaceId!, member: m.name, removed, unverified });
      if (unverified.length) errors.push(`fork ${m.workspaceId}: destroyed, but its provider could not verify the removal of ${unverified.join(', ')}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      report.kept.push({ workspace_id: m.workspaceId!, member: m.name, why: `its destroy failed: ${message}` });
      errors.push(`fork ${m.workspaceId} (${m.name}): not destroyed: ${message}`);
    }
  };
  for (let i = 0; i < doomed.length; i += DESTROY_AT_ONCE) await Promise.all(doomed.slice(i, i + DESTROY_AT_ONCE).map(destroyOne));
  report.destroyed.sort((a, b) => a.workspace_id.localeCompare(b.workspace_id));
  report.kept.sort((a, b) => a.workspace_id.localeCompare(b.workspace_id));
  return report;
}
