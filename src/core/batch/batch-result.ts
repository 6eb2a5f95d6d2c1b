/**
 * A batch's result package (#16), from its durable records alone, so batch,
 * batch-status, batch-wait and batch-cancel return the same package from
 * any process: each member's status in one line, the cleanup report, and the
 * winners' evidence (each winner's own output, with the call that returns
 * its whole job result).
 */
import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { jobOutputEvidence } from '../output/job-evidence.js';
import { buildResult } from '../result/build-result.js';
import { isoTime, provenanceFor } from '../result/package-parts.js';
import { attentionItem, type AttentionItem, type Evidence, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import { commandLabel } from '../run/job-words.js';
import { isOwnerAlive } from '../store/owner.js';
import type { ResultStatus } from '../status.js';
import type { GroupRecord, MemberRecord } from './batch-records.js';
import { batchRecords, memberView } from './drive-batch.js';

export interface BatchResultOptions {
  verb: string;
  /** Overrides the status (a wait that timed out: timeout, the batch runs on). */
  status?: ResultStatus;
  /** Said first, before the batch's own summary. */
  lead?: string;
  attention?: AttentionItem[];
}

export function batchResult(ctx: EngineContext, groupId: string, options: BatchResultOptions): ResultPackage {
  const records = batchRecords(ctx);
  const store = ctx.store();
  const group = records.group(groupId)!;
  const members = records.members(groupId);
  const jobs = new Map(members.flatMap((m) => (m.jobId ? [[m.index, store.getJob(m.jobId)] as const] : [])));
  const views = members.map((m) => memberView(m, jobs.get(m.index)));
  const finished = group.state === 'finished';
  // The winners as the join fixed them when it decided (a job whose end was committed later cannot displace one).
  const ordered = (group.winners ?? []).map((i) => views[i]!).filter(Boolean);
  const winners = new Set(ordered.map((w) => w.index));
  const lines: KeyFinding[] = [groupLine(group, members.length), ...members.map((m) => memberLine(ctx, m, winners.has(m.index)))];
  const cleanup = group.cleanup;
  if (cleanup) {
    lines.push(
      `cleanup: ${cleanup.stopped.length} running job(s) stopped, ${cleanup.never_started} never started${cleanup.gone_ms !== null ? `; every loser gone ${cleanup.gone_ms} ms after the deciding job ended` : ''}${cleanup.errors.length ? `; ${cleanup.errors.length} error(s)` : ''}`,
    );
    for (const error of cleanup.errors) lines.push(`cleanup error: ${error}`);
  }
  const firstFailure = views.filter((v) => v.done && v.status !== 'success' && v.jobId).sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0))[0];
  const evidenceFrom = ordered.length > 0 ? ordered.slice(0, 2) : firstFailure && group.status !== 'success' ? [firstFailure] : [];
  const evidence: Evidence[] = evidenceFrom.flatMap((v) => {
    const job = v.jobId ? store.getJob(v.jobId) : undefined;
    return job && job.state === 'finished' ? [jobOutputEvidence(ctx, job, 1500)] : [];
  });
  const attention: AttentionItem[] = [...(options.attention ?? [])];
  for (const v of ordered.slice(0, 3))
    if (v.jobId)
      attention.push(
        attentionItem('next-step', `winner ${v.name}: its whole job result`, { job_id: v.jobId, action: nextAction('inspect', { handle: v.jobId }) }),
      );
  if (!finished) {
    const driven = group.driver !== null && isOwnerAlive(group.driver);
    attention.push(
      attentionItem(
        'next-step',
        driven
          ? `the batch runs on (driver pid ${group.driver!.pid}); its result once the join decides`
          : 'no live process drives this batch (its driver is gone): batch-wait adopts it and finishes it; jobs already started are watched, never run again',
        { action: nextAction('batch-wait', { groupId }) },
      ),
      attentionItem('next-step', 'to cancel it (losers stopped, queued jobs never started)', { action: nextAction('batch-cancel', { groupId }) }),
    );
  }
  // Forks made for the batch are kept: a winner's holds its work (seal it to bring it back), a loser's is only to be removed.
  for (const m of members)
    if (m.forkOf !== null && m.workspaceId !== null && finished)
      attention.push(
        winners.has(m.index)
          ? attentionItem('next-step', `fork ${m.workspaceId} of ${m.forkOf} (${m.name}) is kept and holds a winner's work; seal it to propose it`, {
              workspace_id: m.workspaceId,
              action: nextAction('seal', { workspaceId: m.workspaceId }),
            })
          : attentionItem('next-step', `fork ${m.workspaceId} of ${m.forkOf} (${m.name}) is kept; destroy it when done`, {
              workspace_id: m.workspaceId,
              action: nextAction('destroy', { workspaceId: m.workspaceId }),
            }),
      );
  const status: ResultStatus = options.status ?? (finished ? group.status! : 'running');
  const ended = views.filter((v) => v.done).length;
  const state = finished ? (group.summary ?? '') : `${ended} of ${members.length} jobs ended, the join has not decided`;
  const soleWinner = ordered.length === 1 && ordered[0]!.jobId ? store.getJob(ordered[0]!.jobId) : undefined;
  return buildResult({
    outcome_summary: `${options.lead ? `${options.lead}; ` : ''}batch ${group.id} (${group.strategy}): ${state}`,
    status,
    key_findings: lines,
    evidence,
    attention,
    provenance: provenanceFor(ctx, options.verb, {
      ...(soleWinner ? { job: soleWinner, workspace: store.getWorkspace(soleWinner.workspaceId) } : {}),
      startedAt: group.createdAt,
      finishedAt: group.finishedAt ?? ctx.clock.now(),
    }),
  });
}

function groupLine(group: GroupRecord, n: number): KeyFinding {
  const bounds = [
    `concurrency ${group.concurrency}`,
    ...(group.quorum !== null ? [`quorum ${group.quorum}`] : []),
    ...(group.timeoutMs !== null ? [`timeout ${group.timeoutMs / 1000} s`] : []),
    `cleanup timeout ${group.cleanupTimeoutMs / 1000} s`,
  ];
  return {
    kind: 'batch',
    text: `group ${group.id}: ${group.strategy} of ${n} jobs, ${bounds.join(', ')}: ${group.state === 'finished' ? group.status : 'running'}`,
    id: group.id,
    status: group.state === 'finished' ? (group.status ?? 'unknown') : 'running',
  };
}

/** One member in one line: its name, status, command, job and workspace; a winner says so. */
function memberLine(ctx: EngineContext, m: MemberRecord, winner: boolean): KeyFinding {
  const job = m.jobId ? ctx.store().getJob(m.jobId) : undefined;
  const status = m.state === 'skipped' ? (m.status ?? 'cancelled') : job?.state === 'finished' ? (job.status ?? 'unknown') : m.state;
  const where = m.workspaceId ?? `a fork of ${m.forkOf}`;
  const exit = job?.exitCode !== null && job?.exitCode !== undefined ? ` (exit ${job.exitCode})` : '';
  const note = m.state === 'skipped' && m.note ? `; ${m.note}` : '';
  return {
    kind: 'job',
    text: `${m.name}${winner ? ' [winner]' : ''}: ${status}${exit} — ${commandLabel(m.argv)} in ${where}${m.jobId && job ? `, job ${m.jobId}` : ''}${note}`,
    ...(m.jobId && job ? { id: m.jobId } : {}),
    status,
    ...(job?.exitCode !== null && job?.exitCode !== undefined ? { exit_code: job.exitCode } : {}),
    ...(job ? { started_at: isoTime(job.startedAt) } : {}),
    ...(job?.finishedAt ? { finished_at: isoTime(job.finishedAt) } : {}),
  };
}
