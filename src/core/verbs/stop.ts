import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { attentionItem, type ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { capabilitiesOf, provenanceFor, usageOfJob } from '../result/package-parts.js';
import { currentOwner, isOwnerAlive } from '../store/owner.js';
import { CANCELLED_BY_STOP } from '../store/records.js';
import { requireLiveWorkspace } from './workspace-guards.js';
import { validateId } from '../ids.js';
import type { JobRecord } from '../store/sqlite-store.js';
import { issuingReceipt } from '../receipts/job-receipt.js';

export interface StopInput {
  workspaceId: string;
  /**
   * End only this running job of the workspace and leave its other jobs
   * running (a policy may allow several at once, #12 item 8). Without it,
   * every running job of the workspace is ended.
   */
  jobId?: string;
  /** Without it, stop only reports what is running and changes nothing. */
  apply?: boolean;
  /** How long to wait for each stopped job's own record to settle, in ms. */
  settleTimeoutMs?: number;
  /** Seconds between SIGTERM and the kill of what remains (default 5): the job's TERM handler runs within it. */
  graceSeconds?: number;
}

export const DEFAULT_STOP_GRACE_SECONDS = 5;
const MAX_STOP_GRACE_SECONDS = 3600;

/**
 * Ends a workspace's in-flight jobs (all of them, or the one `jobId` names),
 * from any process. The preview touches no provider and writes nothing. With
 * apply, each stop is recorded first (so the job's own process classifies it
 * as cancelled), then the provider sends SIGTERM, waits the grace, and kills
 * every process of those jobs that remains; this result and each stopped
 * job's record read cancelled, and a job not named runs on to its own end.
 */
export async function stopJob(ctx: EngineContext, input: StopInput): Promise<ResultPackage> {
  const grace = input.graceSeconds ?? DEFAULT_STOP_GRACE_SECONDS;
  if (typeof grace !== 'number' || !Number.isFinite(grace) || grace < 0 || grace > MAX_STOP_GRACE_SECONDS) {
    throw new EngineError('BAD_ARGUMENT', `${inputRef('graceSeconds')} takes a number of seconds from 0 to ${MAX_STOP_GRACE_SECONDS}`, {
      hint: `for example ${inputRef('graceSeconds', DEFAULT_STOP_GRACE_SECONDS)} (0 kills at once)`,
      inputsOf: 'stop',
    });
  }
  if (input.jobId !== undefined) validateId('job', input.jobId);
  const store = ctx.store();
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  const running = store.runningJobsOf(ws.id);
  const now = ctx.clock.now();
  const idle = (summary: string, findings: string[]) =>
    buildResult({
      outcome_summary: summary,
      status: 'success',
      key_findings: findings,
      provenance: provenanceFor(ctx, 'stop', { workspace: ws, startedAt: now, finishedAt: now }),
    });
  if (input.jobId !== undefined && !running.some((j) => j.id === input.jobId)) {
    const named = store.getJob(input.jobId);
    if (!named || named.workspaceId !== ws.id) {
      throw new EngineError('JOB_NOT_FOUND', `no job ${input.jobId} in workspace ${ws.id}`, {
        hint: 'list its jobs',
        action: nextAction('inspect', { handle: ws.id }),
      });
    }
    return idle(`job ${named.id} in workspace ${ws.id} is not running (${named.status ?? named.state}); nothing to stop`, [
      `lifecycle state: ${ws.state}`,
      `running jobs: ${running.length === 0 ? 'none' : running.map((j) => j.id).join(', ')}`,
    ]);
  }
  const targets = input.jobId === undefined ? running : running.filter((j) => j.id === input.jobId);
  if (targets.length === 0) return idle(`nothing is running in workspace ${ws.id}; nothing to stop`, [`lifecycle state: ${ws.state}`]);
  const elapsed = (job: JobRecord) => Math.max(0, (now - job.startedAt) / 1000).toFixed(1);
  const one = targets.length === 1 ? targets[0]! : undefined;
  if (!input.apply) {
    const findings = targets.flatMap((job) => [
      `${one ? '' : `job ${job.id}: `}running for ${elapsed(job)} s`,
      `${one ? '' : `job ${job.id}: `}owner process: pid ${job.owner.pid} (${isOwnerAlive(job.owner) ? 'alive' : 'gone'})`,
    ]);
    const ending = nextAction('stop', { workspaceId: ws.id, ...(input.jobId === undefined ? {} : { jobId: input.jobId }), apply: true });
    const attention = [attentionItem('next-step', `to end ${one ? 'it' : 'them all'}`, { workspace_id: ws.id, action: ending })];
    if (!one)
      attention.push(
        attentionItem('next-step', 'to end one of them', {
          workspace_id: ws.id,
          job_id: targets[0]!.id,
          action: nextAction('stop', { workspaceId: ws.id, jobId: targets[0]!.id, apply: true }),
        }),
      );
    return buildResult({
      outcome_summary: one
        ? `job ${one.id} is running in workspace ${ws.id}; this preview changed nothing`
        : `jobs ${targets.map((j) => j.id).join(', ')} are running in workspace ${ws.id}; this preview changed nothing`,
      status: 'success',
      key_findings: findings,
      provenance: provenanceFor(ctx, 'stop', { workspace: ws, job: one, startedAt: now, finishedAt: now }),
      attention,
    });
  }

  // Each stop's intent in the commit that records the stop: a detached job's supervisor, seeing the stop, leaves the job
  // to this process's TERM and grace while the intent's owner lives (supervise-job.ts). Recorded apart, a supervisor
  // looking in between killed the job at once (SIGKILL), before its TERM handler had run or its exit was seen.
  const intents = store.atomically(() =>
    targets.map((job) => {
      store.requestStop(job.id);
      return store.openIntent({
        workspaceId: ws.id,
        jobId: job.id,
        op: 'stop',
        provider: ws.provider,
        owner: currentOwner(),
        createdAt: now,
        traceId: ctx.traceId,
      });
    }),
  );
  for (const job of targets) ctx.events.emit({ type: 'job.stop-requested', workspaceId: ws.id, jobId: job.id });
  const provider = await ctx.provider(ws.provider);
  // Named, the provider ends that job alone; unnamed, every job of the workspace (and what a crashed job left).
  const report = await provider.stop(ws.id, { graceMs: Math.round(grace * 1000), ...(input.jobId === undefined ? {} : { jobId: input.jobId }) });
  for (const intent of intents) store.settleIntent(intent, report.empty ? 'stopped' : 'not-empty', ctx.clock.now());

  // Each job's own process writes its record; wait for it, and write it
  // ourselves only when that process is gone (it can no longer do so).
  const deadline = Date.now() + (input.settleTimeoutMs ?? 10_000);
  const warnings: string[] = [];
  const records: JobRecord[] = [];
  for (const job of targets) {
    let record = store.getJob(job.id)!;
    while (record.state === 'running' && Date.now() < deadline && isOwnerAlive(record.owner)) {
      await new Promise((r) => setTimeout(r, 25));
      record = store.getJob(job.id)!;
    }
    if (record.state === 'running' && !isOwnerAlive(record.owner)) {
      const running = record;
      // The terminal record and its receipt in one commit (#16): no terminal job is without one.
      record = store.atomically(() =>
        issuingReceipt(
          ctx,
          ws,
          store.finishJob(job.id, {
            status: 'cancelled',
            exitCode: null,
            signal: 'SIGKILL',
            limitHit: null,
            finishedAt: ctx.clock.now(),
            outputBytes: running.outputBytes,
            storedBytes: running.storedBytes,
            usage: running.usage,
            cancelledBy: CANCELLED_BY_STOP,
            note: `its process (pid ${running.owner.pid}) was gone; stop ended what remained and recorded it as cancelled`,
          }),
        ),
      );
      warnings.push(`the process that started job ${job.id} was gone; stop recorded the job as cancelled itself`);
    }
    records.push(record);
  }
  const names = targets.map((j) => j.id).join(', ');
  if (!report.empty) warnings.push(`the ${ws.provider} provider could not confirm that every process of ${one ? `job ${names}` : `jobs ${names}`} has ended`);
  const status = report.empty ? 'cancelled' : 'infrastructure_failure';
  const findings = records.flatMap((record, i) => {
    const label = one ? '' : `job ${record.id}: `;
    return [
      `${label}job record: ${record.state === 'finished' ? record.status : 'still running'}`,
      `${label}ran for ${elapsed(targets[i]!)} s before the stop`,
    ];
  });
  findings.push(`nothing of ${one ? 'the job' : 'the jobs'} remains: ${report.empty}`);
  const spared = running.filter((j) => !targets.includes(j));
  if (spared.length) findings.push(`still running, not stopped: ${spared.map((j) => `job ${j.id}`).join(', ')}`);
  const what = one ? `job ${names}` : `jobs ${names}`;
  return buildResult({
    outcome_summary: report.empty
      ? `${what} in workspace ${ws.id} ${one ? 'was' : 'were'} stopped and ${one ? 'reads' : 'read'} cancelled`
      : `${what} in workspace ${ws.id} could not be fully stopped`,
    status,
    key_findings: findings,
    warnings,
    resource_usage: one ? usageOfJob(records[0]!) : {},
    provenance: provenanceFor(ctx, 'stop', {
      workspace: ws,
      job: one ? records[0] : undefined,
      caps: await capabilitiesOf(ctx, ws.provider),
      startedAt: now,
      finishedAt: ctx.clock.now(),
    }),
  });
}
