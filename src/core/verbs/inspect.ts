import { createReadStream } from 'node:fs';
import { PassThrough } from 'node:stream';
import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import { ID_PATTERN } from '../ids.js';
import { reconcile } from '../reconcile.js';
import { artifactEntries } from '../result/artifact-view.js';
import type { KeyFinding, ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { isoTime, measuredLimitWarnings, provenanceFor, usageOfJob } from '../result/package-parts.js';
import type { JobRecord, WorkspaceRecord } from '../store/sqlite-store.js';
import { jobOutputEvidence, jobOutputView } from '../output/job-evidence.js';
import { jobFindings, jobSummary, commandLabel } from '../run/job-words.js';
import { askProvider, withBytesSoFar } from '../run/job-result.js';
import { snapshotFindings } from '../snapshots/snapshot-view.js';
import type { VerificationBlock } from '../verification/verification.js';
import { verificationFinding } from '../verification/verification-view.js';

export interface InspectInput {
  handle: string;
}

/** Full captured output, unbounded: what `inspect --logs` and the truncation marker return. */
export interface LogsDump {
  handle: string;
  /** Each job's kept output: a face streams it (`open`) rather than holding it in memory, and never learns where it is kept. */
  jobs: Array<{ jobId: string; outputBytes: number; storedBytes: number; open(): NodeJS.ReadableStream }>;
}

/** A job's kept output as a stream; a job that printed nothing has no file, which reads as empty. */
function openLog(path: string): NodeJS.ReadableStream {
  const stream = createReadStream(path);
  const out = new PassThrough();
  stream.on('error', () => out.end());
  stream.pipe(out);
  return out;
}

function resolveHandle(ctx: EngineContext, handle: string): { workspace: WorkspaceRecord; job?: JobRecord } {
  if (typeof handle !== 'string' || !ID_PATTERN.test(handle) || handle.includes('..')) {
    throw new EngineError('BAD_ID', `${JSON.stringify(String(handle).slice(0, 70))} is not a valid workspace or job id`, {
      hint: 'list the workspaces',
      action: nextAction('ls'),
    });
  }
  const store = ctx.store();
  const ws = store.getWorkspace(handle);
  if (ws) return { workspace: ws };
  const job = store.getJob(handle);
  if (job) return { workspace: store.getWorkspace(job.workspaceId)!, job };
  throw new EngineError('WORKSPACE_NOT_FOUND', `no workspace or job ${handle}`, { hint: 'list the workspaces', action: nextAction('ls') });
}

function refuseDestroyed(ws: WorkspaceRecord): void {
  if (ws.state === 'destroyed') {
    throw new EngineError('WORKSPACE_DESTROYED', `workspace ${ws.id} is a destroyed workspace; its jobs' output is gone`, {
      hint: 'create a new one',
      action: nextAction('create'),
    });
  }
}

export async function inspectHandle(ctx: EngineContext, input: InspectInput): Promise<ResultPackage> {
  const { workspace: ws, job: recorded } = resolveHandle(ctx, input.handle);
  refuseDestroyed(ws);
  const store = ctx.store();
  const attention = await reconcile(ctx, { workspaceId: ws.id, checkProvider: true });
  const provider = await ctx.provider(ws.provider).catch(() => null);
  const { caps, view } = await askProvider(provider, ws.id);
  const summary = provenanceFor(ctx, 'inspect', { workspace: ws, job: recorded, caps });
  if (recorded) {
    // A running job (a detached one, say) as its log shows it so far: its record counts bytes only when it ends.
    const job = withBytesSoFar(recorded, ctx.logPath(recorded.id));
    const output = jobOutputView(ctx, job);
    // A job's verdict and receipt read back as its run returned them (#16).
    const verification = store.verificationOf(job.id) as VerificationBlock | null;
    if (verification) summary.verification = verification;
    const receipt = store.receiptOf(job.id);
    if (receipt) summary.receipt_sha256 = receipt.sha256;
    const verdict = verification ? verificationFinding(verification) : null;
    // The job's egress summary as the run journalled it (#18): what inspect shows later is what run showed then.
    const network = store.networkSummary(job.id);
    return buildResult({
      outcome_summary: jobSummary(job),
      status: job.status ?? 'running',
      key_findings: [
        `job state: ${job.state}`,
        ...(job.note ? [`note: ${job.note}`] : []),
        ...(verdict === null ? [] : [verdict]),
        ...output.findings,
        ...jobFindings(job, ws.policy.budget),
        ...(network === null ? [] : [network]),
      ],
      evidence: output.evidence,
      warnings: measuredLimitWarnings(summary.policy_summary),
      resource_usage: usageOfJob(job, view?.storageBytes ?? null),
      provenance: summary,
      attention,
    });
  }
  const jobs = store.listJobs(ws.id);
  const findings: KeyFinding[] = [
    `lifecycle state: ${ws.state}`,
    `lifecycle path: ${ws.lifecyclePath.join(' -> ')}`,
    ...(ws.failureReason === null ? [] : [`failed because: ${ws.failureReason}`]),
    `provider view: ${view ? view.state : 'unverified (the provider could not be asked)'}`,
    `${jobs.length} job(s)`,
  ];
  if (ws.purpose) findings.push(`purpose: ${ws.purpose}`);
  if (ws.owner) findings.push(`owner: ${ws.owner}`);
  if (ws.expiresAt !== null) findings.push(`expires at: ${isoTime(ws.expiresAt)}`);
  findings.push(...(await snapshotFindings(store, ws, provider?.snapshots)));
  for (const j of jobs.slice(-20)) {
    const status = j.state === 'running' ? 'running' : (j.status ?? 'unknown');
    findings.push({
      kind: 'job',
      text: `job ${j.id}: ${status} — ${commandLabel(j.argv)}${j.exitCode !== null ? ` (exit ${j.exitCode})` : ''}`,
      id: j.id,
      status,
      command: j.argv,
      ...(j.exitCode !== null ? { exit_code: j.exitCode } : {}),
      started_at: isoTime(j.startedAt),
      ...(j.finishedAt !== null ? { finished_at: isoTime(j.finishedAt) } : {}),
    });
  }
  if (jobs.length > 20) findings.push(`… and ${jobs.length - 20} earlier job(s)`);
  const last = jobs[jobs.length - 1];
  return buildResult({
    outcome_summary: `workspace ${ws.id} is ${ws.state} on ${ws.provider} with ${jobs.length} job(s)`,
    status: 'success',
    key_findings: findings,
    artifacts: artifactEntries(store, ws.id),
    evidence: last ? [jobOutputEvidence(ctx, last, 2000)] : [],
    warnings: measuredLimitWarnings(summary.policy_summary),
    resource_usage: { storage_bytes: view?.storageBytes ?? null, output_bytes: jobs.reduce((n, j) => n + j.outputBytes, 0) },
    provenance: summary,
    attention,
  });
}

export async function dumpLogs(ctx: EngineContext, input: InspectInput): Promise<LogsDump> {
  const { workspace: ws, job } = resolveHandle(ctx, input.handle);
  refuseDestroyed(ws);
  const jobs = job ? [job] : ctx.store().listJobs(ws.id);
  return {
    handle: input.handle,
    jobs: jobs.map((j) => ({ jobId: j.id, outputBytes: j.outputBytes, storedBytes: j.storedBytes, open: () => openLog(ctx.logPath(j.id)) })),
  };
}
