/**
 * The one path from a recorded job to its terminal record, shared by a
 * foreground run (in the caller's process) and a detached run (in its
 * supervisor): the provider call with the output captured into the job's log
 * under the output budget, the wall clock enforced by the engine's timer, the
 * facts classified by the run machine, and the single terminal write through
 * `store.finishJob`, in the same transaction that settles the run's intent.
 * Two copies of this drifted once a detached run needed it too; one copy
 * keeps both faces of a run giving the same status, exit and output.
 */
import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { toEngineError, WorkspaceLostError, type EngineError } from '../errors.js';
import { callerFacing } from '../infrastructure-errors.js';
import { openOutputSink } from '../output/output-sink.js';
import type { JobOutcome, Provider } from '../provider.js';
import type { JobRecord, RuleRow, WorkspaceRecord } from '../store/sqlite-store.js';
import { factsOfOutcome, type AbortReason } from '../verbs/classify-outcome.js';
import { settleRun } from './run-machine.js';
import { LEGACY_JOB_UID, jobUserOfSlot } from '../job-identity.js';
import type { EgressSession } from '../network/egress-session.js';
import { summariseEgress } from '../network/egress-ledger.js';
import { TEST_MODE_NOTE } from '../network/egress-resolver.js';
import type { JobSecret } from '../network/egress-secrets.js';
import type { AttentionItem } from '../result/result-package.js';
import { issueJobReceipt } from '../receipts/job-receipt.js';
import { judgeRulesAfterJob } from '../rules/supervise.js';
import { statusAfterChecks, type PlannedCheck, type VerificationBlock } from '../verification/verification.js';
import { verificationRecord } from '../verification/verification-view.js';
import { judgeJob } from '../verification/verify-job.js';

export interface ExecuteJob {
  workspace: WorkspaceRecord;
  provider: Provider;
  jobId: string;
  argv: string[];
  /** Given to the job only: never recorded, never logged. */
  env: Record<string, string>;
  cwd?: string;
  /** The run intent journalled with the job; settled with its terminal record. */
  intentId: number;
  /** Aborting it cancels the job (a foreground caller's interrupt). */
  signal?: AbortSignal;
  /** Who aborting `signal` stands for, as the record names it. */
  canceller?: string;
  /** The run's verification contract (#16): judged after the job's process ends, before its terminal record. */
  checks: readonly PlannedCheck[];
  /** Secrets at egress (#18 item 3): the proxy substitutes each one's value for its placeholder (already in `env`) on its own host only. */
  secrets?: readonly JobSecret[];
  /** Where the egress resolver reads test mode from (#18 F4): a supervisor passes the job's handover; default this process's environment. */
  resolverEnv?: NodeJS.ProcessEnv;
  /** Which process runs this, for the crash points: 'run' or 'supervise'. */
  op: 'run' | 'supervise';
}

export interface ExecutedJob {
  job: JobRecord;
  /** The provider's failure, when the job could not run (infrastructure_failure). */
  failure: EngineError | null;
  /** What the workspace's supervision rules raised once the job ended (#16). */
  ruleAttention: AttentionItem[];
  /** True when the egress proxy answered names from the test resolver map (#18): the run must say so. */
  egressTestMode: boolean;
  /** The verdict with each check's evidence excerpt, which the store does not keep (a check's output is output, not a record). */
  verification: VerificationBlock;
  /** The job's log content as written, when small (output-sink.ts kept()): its result need not read the log back. */
  keptOutput: Buffer | null;
}

export async function executeJob(ctx: EngineContext, request: ExecuteJob): Promise<ExecutedJob> {
  const { workspace: ws, jobId } = request;
  const store = ctx.store();
  const controller = new AbortController();
  let abortReason: AbortReason | null = null;
  const abort = (reason: AbortReason) => {
    if (abortReason !== null) return;
    abortReason = reason;
    controller.abort();
  };
  const budget = ws.policy.budget;
  // The output budget caps what is kept, never the job: past it the sink only counts (#12 item 2).
  const sink = openOutputSink(ctx.logPath(jobId), budget.outputBytes);
  const cancelTimer = ctx.clock.setTimer(budget.wallClockSeconds * 1000, () => abort('timeout'));
  const onCallerAbort = () => abort('cancelled');
  if (request.signal?.aborted) onCallerAbort();
  request.signal?.addEventListener('abort', onCallerAbort, { once: true });

  let outcome: JobOutcome | null = null;
  let failure: EngineError | null = null;
  /** The provider lost the workspace itself (#22): it moves to failed with this reason, in the job's own terminal commit. */
  let lost: string | null = null;
  let failedNow = false;
  let firstOutput = true;
  let egress: EgressSession | null = null;
  try {
    // The egress proxy lives exactly as long as this job's run (#18), in whichever process runs it (the caller, or a detached run's supervisor).
    if (ws.policy.network === 'allowlist') {
      const caps = await request.provider.capabilities();
      // Imported here: the proxy, TLS interception and the CA's packages load only for a job that has egress (#20).
      const { openEgressSession } = await import('../network/egress-session.js');
      egress = await openEgressSession(ws.policy.networkAllow ?? [], {
        simulated: caps.simulated === true,
        now: () => ctx.clock.now(),
        env: request.resolverEnv ?? process.env,
        // The socket is the job uid's alone (#18 F3): the workspace's recorded identity, as the providers run its jobs.
        socket: { home: ctx.home, workspaceId: ws.id, owner: ws.jobSlot === null ? { uid: LEGACY_JOB_UID, gid: LEGACY_JOB_UID } : jobUserOfSlot(ws.jobSlot) },
        ...(request.secrets === undefined || request.secrets.length === 0 ? {} : { secrets: request.secrets }),
        onCut: (at, host, port) => store.recordNetworkCut(jobId, ws.id, at, host, port),
      });
    }
    outcome = await request.provider.run({
      workspaceId: ws.id,
      jobId,
      argv: request.argv,
      env: request.env,
      ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
      policy: ws.policy,
      onOutput: (stream, chunk) => {
        sink.write(stream, chunk);
        if (firstOutput) {
          firstOutput = false;
          crashPoint(request.op, 'during-job');
        }
        ctx.events.emit({ type: 'job.output', jobId, bytes: chunk.length });
      },
      signal: controller.signal,
      ...(egress === null ? {} : { egress: egress.channel }),
    });
  } catch (error) {
    if (error instanceof WorkspaceLostError) lost = error.reason;
    failure = callerFacing(toEngineError(error), ws.provider);
  } finally {
    await egress?.close();
    cancelTimer();
    request.signal?.removeEventListener('abort', onCallerAbort);
    sink.close();
  }
  crashPoint(request.op, 'after-provider-call');
  // Verification (#16): judged after the job's process ended and before its terminal record, so the status recorded (and its event) includes the verdict.
  const verification = await judgeJob(ctx, {
    provider: request.provider,
    ws,
    jobId,
    cwd: request.cwd,
    env: request.env,
    outcome,
    abortReason,
    checks: request.checks,
    signal: request.signal,
    output: { totalBytes: sink.totalBytes, storedBytes: sink.storedBytes },
  });
  const finishedAt = ctx.clock.now();
  // One commit: the intent settles with the job's single terminal record, its verification and its receipt (#16).
  let rules: RuleRow[] = [];
  const job: JobRecord = store.atomically(() => {
    store.settleIntent(request.intentId, failure ? `failed: ${failure.code}` : 'ran', finishedAt);
    // Read in the commit that writes the record: a stop recorded before it was observed before the exit was (run-machine.ts).
    const current = store.getJob(jobId);
    const stopRequested = current?.stopRequested ?? false;
    const end = outcome ? settleRun(factsOfOutcome(outcome, abortReason, stopRequested, request.canceller))! : settleRun([{ kind: 'launch-failed' }])!;
    const finished = store.finishJob(
      jobId,
      {
        status: statusAfterChecks(end.status, verification.outcome),
        exitCode: end.exitCode,
        signal: end.signal,
        limitHit: end.limitHit,
        finishedAt,
        outputBytes: sink.totalBytes,
        storedBytes: sink.storedBytes,
        usage: outcome?.usage ?? {},
        // The provider's words, caller-facing (no host paths): what a later inspect or wait names as the cause.
        ...(failure ? { note: `the ${ws.provider} provider failed: ${failure.message}` } : {}),
        ...(end.cancelledBy === null ? {} : { cancelledBy: end.cancelledBy }),
      },
      current,
    );
    if (request.checks.length > 0) store.recordVerification(jobId, verificationRecord(verification));
    // Every egress decision is evidence (#18 item 2), journalled with the terminal record so whoever reads the job finds it.
    if (egress !== null) {
      const summary = summariseEgress(egress.ledger.decisions, egress.ledger);
      // Test mode is part of the record (#18 F4), so wait and inspect show it, not only a foreground result.
      store.recordNetworkDecisions(jobId, ws.id, egress.ledger.decisions, egress.resolver.testMode === true ? `${summary} ${TEST_MODE_NOTE}` : summary);
    }
    issueJobReceipt(ctx, store, ws, finished, sink.keptSha256 === null ? null : { sha256: sink.keptSha256, kept_bytes: sink.storedBytes });
    // Once: only a workspace still ready moves (a second job meeting the same loss finds it failed already).
    if (lost !== null && store.getWorkspace(ws.id)?.state === 'ready') {
      store.moveWorkspace(ws.id, 'failed', finishedAt, { failureReason: lost });
      failedNow = true;
    }
    // The rules judged after the record, as this commit leaves them: read here, not in a read of their own (#20).
    rules = store.listRules(ws.id);
    return finished;
  });
  ctx.events.emit({ type: 'job.finished', workspaceId: ws.id, jobId, status: job.status ?? 'unknown' });
  if (failedNow && lost !== null) ctx.events.emit({ type: 'workspace.failed', workspaceId: ws.id, reason: lost });
  return {
    job,
    failure,
    ruleAttention: judgeRulesAfterJob(ctx, ws, job, rules),
    verification,
    egressTestMode: egress?.resolver.testMode === true,
    keptOutput: sink.kept(),
  };
}
