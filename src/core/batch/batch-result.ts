/**
 * A batch's result package (#16), from its durable records alone, so batch,
 * batch-status, batch-wait and batch-cancel return the same package from
 * any process: each member's status in one line, the cleanup report, and the
 * winners' evidence (each winner's own output, with the call that returns
 * its whole job result).
 */
import type { EngineContext } from '../context.js';
import { fullOutputOf, nextAction } from '../next-action.js';
import { jobOutputEvidence } from '../output/job-evidence.js';
import { buildResult } from '../result/build-result.js';
import { isoTime, provenanceFor } from '../result/package-parts.js';
import { attentionItem, type AttentionItem, type Evidence, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import { commandLabel } from '../run/job-words.js';
import { isOwnerAlive } from '../store/owner.js';
import type { ResultStatus } from '../status.js';
import type { CleanupReport, ForkReport, GroupRecord, MemberRecord } from './batch-records.js';
import { batchRecords, lostMember, memberView, WAITING } from './drive-batch.js';
import { byFinish } from './join.js';

/** At most this many jobs' output is shown as evidence; the rest are named with the call that returns each. */
const EVIDENCE_JOBS = 5;
/** The bytes of excerpt shared among the jobs shown (each gets at least MIN_EXCERPT_BYTES). */
const EVIDENCE_BUDGET_BYTES = 6000;
const MIN_EXCERPT_BYTES = 1200;
/** At most this many `logs` calls are suggested, one per failed (or left-out) job. */
const LOGS_ACTIONS = 10;

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
  const cleanup = group.cleanup;
  const destroyedForks = new Set(cleanup?.forks?.destroyed.map((d) => d.workspace_id) ?? []);
  const lines: KeyFinding[] = [
    groupLine(group, members.length),
    ...members.map((m) => memberLine(ctx, m, winners.has(m.index), m.workspaceId !== null && destroyedForks.has(m.workspaceId))),
  ];
  if (cleanup) {
    lines.push(cleanupFinding(cleanup));
    for (const error of cleanup.errors) lines.push({ kind: 'cleanup-error', text: `cleanup error: ${error}` });
  }
  const warnings = concurrencyWarnings(ctx, group, members);
  // Whose output is shown: when the batch did not succeed, its failures first (the deciding one leads), then the winners,
  // then every other job that ended; at most EVIDENCE_JOBS of them, and what is left out is said, with the call for each.
  const liveWorkspace = (id: string) => store.getWorkspace(id)?.state !== 'destroyed';
  // A job whose workspace was destroyed (a fork the batch settled) has no log left: its line stays, its output is not offered.
  const endedAll = views.filter((v) => v.done && v.jobId !== null && store.getJob(v.jobId)?.state === 'finished');
  const endedJobs = endedAll.filter((v) => liveWorkspace(store.getJob(v.jobId!)!.workspaceId)).sort(byFinish);
  const logless = endedAll.length - endedJobs.length;
  if (logless > 0) warnings.push(`the output of ${logless} job(s) went with their destroyed forks; each one's line keeps its status and exit code`);
  const failed = endedJobs.filter((v) => v.status !== 'success');
  const failing = finished && group.status !== 'success';
  const order = [...(failing ? failed : []), ...ordered, ...endedJobs];
  const shown = [...new Map(order.map((v) => [v.index, v])).values()];
  const excerptBytes = Math.max(MIN_EXCERPT_BYTES, Math.floor(EVIDENCE_BUDGET_BYTES / Math.min(shown.length, EVIDENCE_JOBS) || 1));
  const evidence: Evidence[] = shown.slice(0, EVIDENCE_JOBS).map((v) => ({
    ...jobOutputEvidence(ctx, store.getJob(v.jobId!)!, excerptBytes),
    label: `${v.name}${winners.has(v.index) ? (v.status === 'success' ? ' (winner)' : ' (the deciding job)') : v.status !== 'success' ? ` (${v.status})` : ''}: captured output`,
  }));
  const omitted = shown.slice(EVIDENCE_JOBS);
  if (omitted.length > 0)
    warnings.push(
      `the output of ${omitted.length} more job(s) is not shown here (${omitted
        .slice(0, 10)
        .map((v) => v.name)
        .join(', ')}${omitted.length > 10 ? ', …' : ''}): logs JOB returns each`,
    );
  const attention: AttentionItem[] = [...(options.attention ?? [])];
  for (const v of ordered.slice(0, 3))
    if (v.jobId)
      attention.push(
        attentionItem('next-step', `${v.status === 'success' ? 'winner' : 'the deciding job'} ${v.name}: its whole job result`, {
          job_id: v.jobId,
          action: nextAction('inspect', { handle: v.jobId }),
        }),
      );
  // Every failed job (bounded) gets the call that returns its whole output; the jobs whose output was left out too.
  const named = new Set(ordered.slice(0, 3).map((v) => v.index));
  for (const v of [...failed, ...omitted.filter((o) => o.status === 'success')].slice(0, LOGS_ACTIONS))
    if (!named.has(v.index) || v.status !== 'success') {
      named.add(v.index);
      attention.push(attentionItem('next-step', `${v.name} (${v.status}): all of its output`, { job_id: v.jobId!, action: fullOutputOf(v.jobId!) }));
    }
  if (!finished) {
    const driven = group.driver !== null && isOwnerAlive(group.driver);
    attention.push(
      attentionItem(
        'next-step',
        driven
          ? `the batch runs on (driver pid ${group.driver!.pid}); its result once the join decides`
          : 'no live process drives this batch (its driver is gone): waiting on it adopts it and finishes it; jobs already started are watched, never run again',
        { action: nextAction('batch-wait', { groupId }) },
      ),
      attentionItem('next-step', 'to cancel it (losers stopped, queued jobs never started)', { action: nextAction('batch-cancel', { groupId }) }),
    );
  }
  // The forks the batch kept (batch-forks.ts): a winner's holds its work (seal it to propose it), another is kept for its
  // evidence or on request, to destroy when done. A record from before forks were settled kept them all.
  const forks = cleanup?.forks;
  const kept = forks ? new Map(forks.kept.map((k) => [k.workspace_id, k.why])) : null;
  for (const m of members)
    if (m.forkOf !== null && m.workspaceId !== null && finished && (kept === null || kept.has(m.workspaceId)) && liveWorkspace(m.workspaceId))
      attention.push(
        // Only a winner that succeeded holds work to propose: a deciding job that failed is evidence, never to seal.
        winners.has(m.index) && views[m.index]?.status === 'success'
          ? attentionItem('next-step', `fork ${m.workspaceId} of ${m.forkOf} (${m.name}) is kept and holds a winner's work; seal it to propose it`, {
              workspace_id: m.workspaceId,
              action: nextAction('seal', { workspaceId: m.workspaceId }),
            })
          : attentionItem(
              'next-step',
              `fork ${m.workspaceId} of ${m.forkOf} (${m.name}) is kept (${kept?.get(m.workspaceId) ?? 'forks were kept'}); destroy it when done`,
              {
                workspace_id: m.workspaceId,
                action: nextAction('destroy', { workspaceId: m.workspaceId }),
              },
            ),
      );
  const status: ResultStatus = options.status ?? (finished ? group.status! : 'running');
  const ended = views.filter((v) => v.done).length;
  const state = finished ? (group.summary ?? '') : `${ended} of ${members.length} jobs ended, the join has not decided`;
  const soleWinner = ordered.length === 1 && ordered[0]!.jobId ? store.getJob(ordered[0]!.jobId) : undefined;
  return buildResult({
    // The join's summary leads with its strategy ("race: …"), already named in the parentheses: said once.
    outcome_summary: `${options.lead ? `${options.lead}; ` : ''}batch ${group.id} (${group.strategy}): ${state.startsWith(`${group.strategy}: `) ? state.slice(group.strategy.length + 2) : state}`,
    status,
    key_findings: lines,
    evidence,
    warnings,
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
    group_id: group.id,
    strategy: group.strategy,
    ...(group.quorum !== null ? { quorum: group.quorum } : {}),
    status: group.state === 'finished' ? (group.status ?? 'unknown') : 'running',
  };
}

/** One member in one line: its name, status, command, job and workspace; a winner says so. */
function memberLine(ctx: EngineContext, m: MemberRecord, winner: boolean, forkDestroyed: boolean): KeyFinding {
  const job = m.jobId ? ctx.store().getJob(m.jobId) : undefined;
  const lost = lostMember(m);
  const status = m.state === 'skipped' || lost ? (m.status ?? 'cancelled') : job?.state === 'finished' ? (job.status ?? 'unknown') : m.state;
  const where = m.workspaceId ?? `a fork of ${m.forkOf}`;
  const exit = job?.exitCode !== null && job?.exitCode !== undefined ? ` (exit ${job.exitCode})` : '';
  // A skipped member says why; a queued one says what it waits for (a busy workspace).
  const note =
    (m.note && (m.state === 'skipped' || lost || (m.state === 'queued' && m.note.startsWith(WAITING))) ? `; ${m.note}` : '') +
    (forkDestroyed ? `; its fork was destroyed when the batch settled` : '');
  const label = winner ? (status === 'success' ? ' [winner]' : ' [deciding job]') : '';
  return {
    kind: 'job',
    text: `${m.name}${label}: ${status}${exit} — ${commandLabel(m.argv)} in ${where}${m.jobId && job ? `, job ${m.jobId}` : ''}${note}`,
    ...(m.jobId && job ? { id: m.jobId, job_id: m.jobId } : {}),
    name: m.name,
    command: m.argv,
    ...(m.workspaceId !== null ? { workspace_id: m.workspaceId } : {}),
    ...(m.forkOf !== null ? { fork_of: m.forkOf } : {}),
    ...(winner ? { role: status === 'success' ? 'winner' : 'deciding' } : {}),
    ...(m.forkOf !== null && m.workspaceId !== null ? { workspace_id: m.workspaceId, fork: forkDestroyed ? 'destroyed' : 'kept' } : {}),
    status,
    ...(job?.exitCode !== null && job?.exitCode !== undefined ? { exit_code: job.exitCode } : {}),
    ...(job ? { started_at: isoTime(job.startedAt) } : {}),
    ...(job?.finishedAt ? { finished_at: isoTime(job.finishedAt) } : {}),
  };
}

/** From what the losers' gone time is counted: the deciding job's end, or the cancel, timeout or signal that ended the batch. */
const GONE_AFTER = {
  decider: 'the deciding job ended',
  cancel: 'the cancel',
  timeout: "the batch's timeout ran out",
  signal: 'the interrupt',
} as const;

/** What the destroyed forks' provider removed, once for all of them (each fork's own list is in the record). */
function removedWords(forks: ForkReport): string {
  const removed = [...new Set(forks.destroyed.flatMap((d) => d.removed))];
  return removed.length ? `removed: ${removed.join(', ')}` : 'nothing left to remove';
}

function cleanupFinding(cleanup: CleanupReport): KeyFinding {
  const after = GONE_AFTER[cleanup.after ?? 'decider'];
  const forks = cleanup.forks;
  return {
    kind: 'cleanup',
    text: `cleanup: ${cleanup.stopped.length} running job(s) stopped, ${cleanup.never_started} never started${cleanup.gone_ms !== null ? `; every loser gone ${cleanup.gone_ms} ms after ${after}` : ''}${forks ? `; forks: ${forks.destroyed.length} destroyed (${removedWords(forks)}), ${forks.kept.length} kept` : ''}${cleanup.errors.length ? `; ${cleanup.errors.length} error(s)` : ''}`,
    stopped: cleanup.stopped,
    never_started: cleanup.never_started,
    gone_ms: cleanup.gone_ms,
    gone_after: cleanup.after ?? 'decider',
    errors: cleanup.errors.length,
    ...(forks
      ? { forks_destroyed: forks.destroyed.map((d) => d.workspace_id), forks_kept: forks.kept.map((k) => ({ workspace_id: k.workspace_id, why: k.why })) }
      : {}),
  };
}

/**
 * A batch whose --concurrency exceeds what a workspace allows at once runs that workspace's jobs fewer at a time:
 * said, never silently (the workspace's own budget is enforced, the batch's concurrency is only a ceiling).
 */
function concurrencyWarnings(ctx: EngineContext, group: GroupRecord, members: MemberRecord[]): string[] {
  const perWorkspace = new Map<string, number>();
  for (const m of members) if (m.forkOf === null && m.workspaceId !== null) perWorkspace.set(m.workspaceId, (perWorkspace.get(m.workspaceId) ?? 0) + 1);
  const warnings: string[] = [];
  // A race one job at a time is no race: the first job in the spec ends first and decides, and the rest never start
  // (a new user's race always "won" with its first job, exit 6 for the others, and nothing said why).
  if (group.strategy === 'race' && group.concurrency < members.length)
    warnings.push(
      `race at concurrency ${group.concurrency} runs ${group.concurrency === 1 ? 'one job' : `${group.concurrency} jobs`} at a time: the first to end decides, so jobs queued behind ${group.concurrency === 1 ? 'it' : 'them'} never race (give concurrency ${members.length} to start all ${members.length} at once)`,
    );
  for (const [id, count] of perWorkspace) {
    const allowed = ctx.store().getWorkspace(id)?.policy.budget.concurrency ?? 1;
    if (group.concurrency > allowed && count > allowed)
      warnings.push(
        `workspace ${id} allows ${allowed} job(s) at once, so its ${count} jobs run at most ${allowed} at a time, not ${group.concurrency}: the others wait queued (raise its concurrency budget, or give the jobs fork: to run each in a fork of its own)`,
      );
  }
  return warnings;
}
