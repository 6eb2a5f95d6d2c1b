import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { validateId } from '../ids.js';
import { nextAction } from '../next-action.js';
import { jobOutputEvidence } from '../output/job-evidence.js';
import { reconcile } from '../reconcile.js';
import { buildResult } from '../result/build-result.js';
import { isoTime, provenanceFor } from '../result/package-parts.js';
import { attentionItem, type AttentionItem, type Evidence, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import { commandLabel } from '../run/job-words.js';
import { jobResult, recordedFailure, withBytesSoFar } from '../run/job-result.js';
import { isOwnerAlive } from '../store/owner.js';
import { WAITER_POLL_MS, waitForChange } from '../events/wait-for-change.js';
import type { JobRecord } from '../store/sqlite-store.js';

export interface WaitInput {
  /** A job id, or several (a detached run returns each in provenance.job_id). */
  jobIds: string | string[];
  /** End the wait when the first job ends (default: when every job has ended). */
  any?: boolean;
  /** End the wait after this many seconds with status timeout (exit 4), leaving the jobs running; default: no limit. */
  timeoutSeconds?: number;
  /** Aborting it ends the wait (status cancelled); the jobs run on. */
  signal?: AbortSignal;
}

export const MAX_WAIT_JOBS = 100;
/** At least this long between looks at whether each running job's owner is still alive (a read of /proc per job) and at the output kept so far. */
const ORPHAN_CHECK_MS = 200;

/**
 * Blocks until the jobs are terminal (every one, or with `any` the first) by
 * reading their records, and returns the result a foreground run returns for
 * the job (job-result.ts); for several jobs, one package naming each job's
 * status, with the first one that did not succeed deciding the status. A
 * timeout returns what is known (status timeout, exit 4) and leaves the jobs
 * running; waiting changes nothing.
 */
export async function waitForJobs(ctx: EngineContext, input: WaitInput): Promise<ResultPackage> {
  const ids = [...new Set(typeof input.jobIds === 'string' ? [input.jobIds] : Array.isArray(input.jobIds) ? input.jobIds : [])];
  if (ids.length === 0)
    throw new EngineError('BAD_ARGUMENT', 'wait needs at least one job id', { hint: 'give the job ids a detached run returned (provenance.job_id)' });
  if (ids.length > MAX_WAIT_JOBS)
    throw new EngineError('BAD_ARGUMENT', `wait takes at most ${MAX_WAIT_JOBS} job ids`, {
      hint: `wait for them in groups, or with ${inputRef('any')}`,
      inputsOf: 'wait',
    });
  for (const id of ids) validateId('job', id);
  const timeout = input.timeoutSeconds;
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0 || timeout > 86_400))
    throw new EngineError('BAD_ARGUMENT', `${inputRef('timeoutSeconds')} takes a number of seconds from 0 to 86400`, {
      hint: `for example ${inputRef('timeoutSeconds', 60)}`,
      inputsOf: 'wait',
    });
  const store = ctx.store();
  const read = () =>
    ids.map((id) => {
      const job = store.getJob(id);
      if (!job)
        throw new EngineError('JOB_NOT_FOUND', `no job ${id}`, {
          hint: "inspect the job's workspace for its jobs, or list the workspaces",
          action: nextAction('ls'),
        });
      return job;
    });
  const startedAt = Date.now();
  const deadline = timeout === undefined ? Infinity : startedAt + timeout * 1000;
  let jobs = read();
  const done = () => (input.any === true ? jobs.some((j) => j.state === 'finished') : jobs.every((j) => j.state === 'finished'));
  // A job whose owner (a detached run's supervisor) died will never end by itself: waiting on would only run out the timeout.
  const orphans = () => jobs.filter((j) => j.state === 'running' && !isOwnerAlive(j.owner));
  let checkedAt = Date.now();
  let orphaned: JobRecord[] = [];
  const sizes = new Map<string, number>();
  reportOutputSizes(ctx, jobs, sizes);
  while (!done() && Date.now() < deadline && input.signal?.aborted !== true) {
    // A job's end is a commit by the process that ran it: the store's change counter is read every few ms and the
    // records only when it moved, or every 200 ms anyway (reading them every 15 ms kept 5% of a core busy).
    await waitForChange(ctx, Math.max(Date.now() + 5, deadline), input.signal, WAITER_POLL_MS);
    store.refuseIfMoved();
    jobs = read();
    if (Date.now() - checkedAt >= ORPHAN_CHECK_MS && !done()) {
      checkedAt = Date.now();
      reportOutputSizes(ctx, jobs, sizes);
      orphaned = orphans();
      if (orphaned.length > 0) {
        // A home moved away under the wait ends its supervisor too: say that, not that the job's process died.
        store.refuseIfMoved({ now: true });
        // Read again after the deaths were seen: a process records its job's end before it exits, so one that ended the
        // job between the read above and the look at /proc is not taken for lost. What still runs now is lost for good.
        jobs = read();
        const running = new Set(jobs.filter((j) => j.state === 'running').map((j) => j.id));
        orphaned = orphaned.filter((j) => running.has(j.id));
        if (orphaned.length > 0 || done()) break;
      }
    }
  }
  // Whatever ended the wait, what it read is answered only from a store still at its home: a job can end because its
  // home was moved (a fake job's state went with it, a supervisor gave up), and its record, written to the moved
  // file, is one nobody else will read: the move is the answer (exit 2), as when the wait notices it first.
  store.refuseIfMoved({ now: true });
  const waited = (Date.now() - startedAt) / 1000;
  if (orphaned.length > 0 && !done()) return ownerless(ctx, jobs, orphaned, waited);
  if (!done()) return unfinished(ctx, jobs, input.signal?.aborted === true ? 'cancelled' : 'timeout', waited);
  const finished = jobs.filter((j) => j.state === 'finished');
  if (jobs.length === 1 || input.any === true) {
    const job = finished[0]!;
    const ws = store.getWorkspace(job.workspaceId)!;
    const attention: AttentionItem[] = await reconcile(ctx, { workspaceId: ws.id });
    for (const other of jobs.filter((j) => j.state === 'running'))
      attention.push(
        attentionItem('next-step', `job ${other.id} still runs; wait for it`, { job_id: other.id, action: nextAction('wait', { jobIds: other.id }) }),
      );
    const provider = await ctx.provider(ws.provider).catch(() => null);
    return jobResult(ctx, { verb: 'wait', workspace: ws, job, provider, failureMessage: recordedFailure(job), attention });
  }
  return allEnded(ctx, jobs, waited);
}

/**
 * The output each running job has kept so far, as an event when it grew: the
 * job runs in another process (a supervisor), so no job.output event reaches
 * this engine, and a progress reader (MCP) would otherwise say 0 bytes while
 * the job prints. One stat of the log per running job, every third of a second.
 */
function reportOutputSizes(ctx: EngineContext, jobs: readonly JobRecord[], sizes: Map<string, number>): void {
  for (const job of jobs) {
    if (job.state !== 'running') continue;
    const bytes = withBytesSoFar(job, ctx.logPath(job.id)).outputBytes ?? 0;
    if (bytes === (sizes.get(job.id) ?? 0)) continue;
    sizes.set(job.id, bytes);
    ctx.events.emit({ type: 'job.output-size', jobId: job.id, bytes });
  }
}

/** Several jobs, all ended: each one's status in a line; the first that did not succeed decides the package's status. */
function allEnded(ctx: EngineContext, jobs: JobRecord[], waited: number): ResultPackage {
  const failed = jobs.filter((j) => j.status !== 'success');
  const counts = new Map<string, number>();
  for (const j of jobs) counts.set(j.status ?? 'unknown', (counts.get(j.status ?? 'unknown') ?? 0) + 1);
  const tally = [...counts].map(([status, n]) => `${n} ${status}`).join(', ');
  const evidence: Evidence[] = failed.slice(0, 3).map((j) => jobOutputEvidence(ctx, j, 1500));
  return buildResult({
    outcome_summary: `${jobs.length} jobs ended: ${tally}`,
    status: failed[0]?.status ?? 'success',
    key_findings: [...jobs.map(jobLine), `waited ${waited.toFixed(2)} s`],
    evidence,
    attention: failed.map((j) =>
      attentionItem('next-step', `job ${j.id} ended ${j.status}; its whole result`, { job_id: j.id, action: nextAction('inspect', { handle: j.id }) }),
    ),
    provenance: provenanceFor(ctx, 'wait', { startedAt: Date.now() - waited * 1000, finishedAt: Date.now() }),
  });
}

/** A job whose owner died with no terminal record: it will not end by itself; doctor's repair settles it by the run machine's rules. */
function ownerless(ctx: EngineContext, jobs: JobRecord[], orphaned: JobRecord[], waited: number): ResultPackage {
  const names = orphaned.map((j) => `job ${j.id} (process ${j.owner.pid})`).join(', ');
  return buildResult({
    outcome_summary: `wait ended after ${waited.toFixed(1)} s: the process that ran ${names} is gone without recording its end; the job will not end by itself`,
    status: 'infrastructure_failure',
    key_findings: jobs.map(jobLine),
    attention: [
      attentionItem('next-step', "settle it by the run machine's rules (cancelled if a stop was pending, else infrastructure_failure)", {
        action: nextAction('doctor', { repair: true }),
      }),
    ],
    provenance: provenanceFor(ctx, 'wait', { startedAt: Date.now() - waited * 1000, finishedAt: Date.now() }),
  });
}

/** The wait ran out (timeout, exit 4) or was interrupted (cancelled, exit 5): what is known, the jobs left running. */
function unfinished(ctx: EngineContext, jobs: JobRecord[], why: 'timeout' | 'cancelled', waited: number): ResultPackage {
  const running = jobs.filter((j) => j.state === 'running');
  const ended = jobs.length - running.length;
  const what = why === 'timeout' ? `wait timed out after ${waited.toFixed(1)} s` : 'wait was interrupted';
  const runningIds = running.map((j) => j.id).join(', ');
  return buildResult({
    outcome_summary: `${what}: ${ended} of ${jobs.length} job(s) ended; ${running.length === 1 ? `job ${runningIds} runs` : `jobs ${runningIds} run`} on (the wait changed nothing)`,
    status: why,
    key_findings: jobs.map(jobLine),
    attention: running.flatMap((j) => [
      attentionItem('next-step', `job ${j.id} still runs; wait again`, { job_id: j.id, action: nextAction('wait', { jobIds: j.id }) }),
      attentionItem('next-step', `its output so far`, { job_id: j.id, action: nextAction('logs', { jobId: j.id, tail: 20 }) }),
    ]),
    provenance: provenanceFor(ctx, 'wait', { startedAt: Date.now() - waited * 1000, finishedAt: Date.now() }),
  });
}

function jobLine(j: JobRecord): KeyFinding {
  const status = j.state === 'running' ? 'running' : (j.status ?? 'unknown');
  return {
    kind: 'job',
    text: `job ${j.id}: ${status} — ${commandLabel(j.argv)}${j.exitCode !== null ? ` (exit ${j.exitCode})` : ''}`,
    id: j.id,
    status,
    ...(j.exitCode !== null ? { exit_code: j.exitCode } : {}),
    started_at: isoTime(j.startedAt),
    ...(j.finishedAt !== null ? { finished_at: isoTime(j.finishedAt) } : {}),
  };
}
