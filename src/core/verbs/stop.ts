import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { makeResultPackage, emptyUsage, type ResultPackage } from '../result/result-package.js';
import { capabilitiesOf, provenanceFor, usageOfJob } from '../result/package-parts.js';
import { currentOwner, isOwnerAlive } from '../store/owner.js';
import { CANCELLED_BY_STOP } from '../store/records.js';
import { requireLiveWorkspace } from './workspace-guards.js';

export interface StopInput {
  workspaceId: string;
  /** Without it, stop only reports what is running and changes nothing. */
  apply?: boolean;
  /** How long to wait for the running job's own record to settle, in ms. */
  settleTimeoutMs?: number;
  /** Seconds between SIGTERM and the kill of what remains (default 5): the job's TERM handler runs within it. */
  graceSeconds?: number;
}

export const DEFAULT_STOP_GRACE_SECONDS = 5;
const MAX_STOP_GRACE_SECONDS = 3600;

/**
 * Ends a workspace's in-flight job, from any process. The preview touches no
 * provider and writes nothing. With apply, the stop is recorded first (so the
 * job's own process classifies it as cancelled), then the provider sends
 * SIGTERM, waits the grace, and kills every process that remains; both this
 * result and the job's record read cancelled.
 */
export async function stopJob(ctx: EngineContext, input: StopInput): Promise<ResultPackage> {
  const grace = input.graceSeconds ?? DEFAULT_STOP_GRACE_SECONDS;
  if (typeof grace !== 'number' || !Number.isFinite(grace) || grace < 0 || grace > MAX_STOP_GRACE_SECONDS) {
    throw new EngineError('BAD_ARGUMENT', `--grace-seconds takes a number of seconds from 0 to ${MAX_STOP_GRACE_SECONDS}`, { hint: `for example --grace-seconds ${DEFAULT_STOP_GRACE_SECONDS} (0 kills at once)` });
  }
  const store = ctx.store();
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  const job = store.runningJob(ws.id);
  const now = ctx.clock.now();
  if (!job) {
    return makeResultPackage({
      outcome_summary: `nothing is running in workspace ${ws.id}; nothing to stop`,
      status: 'success',
      key_findings: [`lifecycle state: ${ws.state}`],
      evidence: [],
      artifacts: [],
      warnings: [],
      resource_usage: emptyUsage(),
      provenance: provenanceFor(ctx, 'stop', { workspace: ws, startedAt: now, finishedAt: now }),
      attention: [],
    });
  }
  const elapsed = Math.max(0, (now - job.startedAt) / 1000).toFixed(1);
  if (!input.apply) {
    return makeResultPackage({
      outcome_summary: `job ${job.id} is running in workspace ${ws.id}; this preview changed nothing`,
      status: 'success',
      key_findings: [`running for ${elapsed} s`, `owner process: pid ${job.owner.pid} (${isOwnerAlive(job.owner) ? 'alive' : 'gone'})`],
      evidence: [],
      artifacts: [],
      warnings: [],
      resource_usage: emptyUsage(),
      provenance: provenanceFor(ctx, 'stop', { workspace: ws, job, startedAt: now, finishedAt: now }),
      attention: [`to end it: ${ctx.invoke('stop', { workspaceId: ws.id, apply: true })}`],
    });
  }

  store.requestStop(job.id);
  ctx.events.emit({ type: 'job.stop-requested', workspaceId: ws.id, jobId: job.id });
  const provider = await ctx.provider(ws.provider);
  const intent = store.openIntent({ workspaceId: ws.id, jobId: job.id, op: 'stop', provider: ws.provider, owner: currentOwner(), createdAt: now, traceId: ctx.traceId });
  const report = await provider.stop(ws.id, { graceMs: Math.round(grace * 1000) });
  store.settleIntent(intent, report.empty ? 'stopped' : 'not-empty', ctx.clock.now());

  // The job's own process writes its record; wait for it, and write it
  // ourselves only when that process is gone (it can no longer do so).
  const deadline = Date.now() + (input.settleTimeoutMs ?? 10_000);
  let record = store.getJob(job.id)!;
  while (record.state === 'running' && Date.now() < deadline && isOwnerAlive(record.owner)) {
    await new Promise((r) => setTimeout(r, 25));
    record = store.getJob(job.id)!;
  }
  const warnings: string[] = [];
  if (record.state === 'running' && !isOwnerAlive(record.owner)) {
    record = store.finishJob(job.id, { status: 'cancelled', exitCode: null, signal: 'SIGKILL', limitHit: null, finishedAt: ctx.clock.now(), outputBytes: record.outputBytes, storedBytes: record.storedBytes, usage: record.usage, cancelledBy: CANCELLED_BY_STOP, note: `its process (pid ${record.owner.pid}) was gone; stop ended what remained and recorded it as cancelled` });
    warnings.push(`the process that started job ${job.id} was gone; stop recorded the job as cancelled itself`);
  }
  if (!report.empty) warnings.push(`the ${ws.provider} provider could not confirm that every process of job ${job.id} has ended`);
  const status = report.empty ? 'cancelled' : 'infrastructure_failure';
  return makeResultPackage({
    outcome_summary: report.empty ? `job ${job.id} in workspace ${ws.id} was stopped and reads cancelled` : `job ${job.id} in workspace ${ws.id} could not be fully stopped`,
    status,
    key_findings: [`job record: ${record.state === 'finished' ? record.status : 'still running'}`, `ran for ${elapsed} s before the stop`, `nothing of the job remains: ${report.empty}`],
    evidence: [],
    artifacts: [],
    warnings,
    resource_usage: usageOfJob(record),
    provenance: provenanceFor(ctx, 'stop', { workspace: ws, job: record, caps: await capabilitiesOf(ctx, ws.provider), startedAt: now, finishedAt: ctx.clock.now() }),
    attention: [],
  });
}
