/**
 * `run --detach` (#15 item 1), the supervisor's half for one job: run in the
 * home's shared supervisor (shared-supervisor.ts, many jobs at once) or in
 * the per-job fallback. The supervisor owns the job in the store (its pid
 * and start time); this runs it through the same path as a foreground run
 * (execute-job.ts: output into the job's log under the output budget, the
 * wall clock, the run machine, the one terminal record). Killed with -9 at
 * any point, the supervisor leaves its jobs recorded running under a dead
 * owner: reconcile reports them and doctor's repair settles each by the run
 * machine's rules.
 */
import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { isOwnerAlive } from '../store/owner.js';
import { CANCELLED_BY_STOP } from '../store/records.js';
import { executeJob } from './execute-job.js';
import { decodeHandover } from './handover.js';
import { TEST_RESOLVER_ENV, TEST_UPSTREAM_CA_ENV } from '../network/egress-resolver.js';
import { issuingReceipt } from '../receipts/job-receipt.js';
import { settleRun } from './run-machine.js';

/** How often the supervisor looks for a stop recorded by another process (one indexed read). */
const STOP_POLL_MS = 100;

/**
 * Runs the job the caller handed over. `handover` is what came over the
 * socket or pipe ('' or incomplete: the caller died before it handed the job
 * over).
 */
export async function superviseJob(ctx: EngineContext, jobId: string, handoverText: string): Promise<void> {
  const store = ctx.store();
  const job = store.getJob(jobId);
  // No record (the caller died before it recorded the job, or the record was refused), or not ours: nothing to do.
  if (!job || job.state !== 'running' || job.owner.pid !== process.pid) return;
  const handover = decodeHandover(handoverText, jobId);
  const ws = store.getWorkspace(job.workspaceId);
  const intentIds = store
    .openIntents()
    .filter((i) => i.jobId === jobId && i.op === 'run')
    .map((i) => i.id);
  const launchFailed = (note: string) => {
    const end = settleRun([{ kind: 'launch-failed' }])!;
    const now = ctx.clock.now();
    store.atomically(() => {
      for (const id of intentIds) store.settleIntent(id, 'failed: not launched', now);
      store.finishJob(jobId, {
        status: end.status,
        exitCode: null,
        signal: null,
        limitHit: null,
        finishedAt: now,
        outputBytes: 0,
        storedBytes: 0,
        usage: {},
        note,
      });
      // Every terminal record has its receipt, in its own commit (#16).
      if (ws) issuingReceipt(ctx, ws, store.getJob(jobId)!);
    });
  };
  if (!handover || !ws) {
    launchFailed("the detached run's caller ended before it handed the job to its supervisor; the command never started");
    return;
  }
  crashPoint('supervise', 'before-launch');
  let provider;
  try {
    provider = await ctx.provider(ws.provider);
  } catch (error) {
    launchFailed(`the ${ws.provider} provider could not be started by the supervisor (${(error as Error).message.slice(0, 200)}); the command never started`);
    return;
  }
  // A stop reaches the job through the provider (stop's own call: TERM, its grace, then a kill); this catches one that
  // came before the launch, that the provider missed, or whose process died before it ended the job. While the stop's
  // process lives (its intent open, recorded with the stop), the job is left to it: aborting here kills the job at
  // once, and a job whose TERM handler would have exited within the grace was recorded killed by SIGKILL, exit none.
  const stopped = new AbortController();
  const poll = setInterval(() => {
    if (store.getJob(jobId)?.stopRequested !== true) return;
    if (store.openIntents().some((i) => i.jobId === jobId && i.op === 'stop' && isOwnerAlive(i.owner))) return;
    stopped.abort();
  }, STOP_POLL_MS);
  try {
    await executeJob(ctx, {
      workspace: ws,
      provider,
      jobId,
      argv: job.argv,
      env: handover.env,
      ...(job.cwd === null ? {} : { cwd: job.cwd }),
      intentId: handover.intentId,
      checks: handover.checks,
      // The job's own test mode, from its handover only (#18 F4); the supervisor's environment never sets it.
      resolverEnv: {
        ...(handover.testResolverMap === undefined ? {} : { [TEST_RESOLVER_ENV]: handover.testResolverMap }),
        ...(handover.testUpstreamCa === undefined ? {} : { [TEST_UPSTREAM_CA_ENV]: handover.testUpstreamCa }),
      },
      secrets: handover.secrets ?? [],
      signal: stopped.signal,
      canceller: CANCELLED_BY_STOP,
      op: 'supervise',
    });
  } finally {
    clearInterval(poll);
  }
}
