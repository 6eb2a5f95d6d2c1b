/**
 * The batch verbs (#16): batch, batch-status, batch-wait, batch-cancel. The
 * join and its driver are core/batch/; these validate, record, and decide
 * who drives (see drive-batch.ts and "Batches" in docs/ARCHITECTURE.md).
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { resolve as absolutePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import type { ResultPackage } from '../result/result-package.js';
import { refuseUndetachable, supervisorEnv } from '../run/detach-job.js';
import { currentOwner, processStartTime, type Owner } from '../store/owner.js';
import { requireSnapshots } from '../snapshots/snapshot-guards.js';
import { requireLiveWorkspace, requireUnexpired } from './workspace-guards.js';
import type { GroupRecord } from '../batch/batch-records.js';
import { batchResult } from '../batch/batch-result.js';
import { readBatchSpec } from '../batch/batch-spec.js';
import { batchRecords, driveBatch, reportBatchProgress, tryAdopt } from '../batch/drive-batch.js';
import { STRATEGIES, type Strategy } from '../batch/join.js';
import { WAITER_POLL_MS, waitForChange } from '../events/wait-for-change.js';

/** The detached driver is `headspace batch wait GROUP`, which adopts the seat: a bin, as only a bin exits. */
const HEADSPACE_BIN = fileURLToPath(new URL('../../../bin/headspace', import.meta.url));

export const DEFAULT_CLEANUP_TIMEOUT_SECONDS = 10;
export const MAX_BATCH_CONCURRENCY = 64;

export interface BatchInput {
  strategy: Strategy;
  /** quorum: how many successes decide. */
  quorum?: number;
  /** Jobs at once (default 1): a slot is held until its job's terminal record. */
  concurrency?: number;
  /** The whole batch's limit: past it, status timeout and every unfinished job cancelled. */
  timeoutSeconds?: number;
  /** How long cancelling the losers may take before it is reported as a cleanup error (default 10). */
  cleanupTimeoutSeconds?: number;
  /** The spec as YAML or JSON text (the CLI's --spec FILE|-). */
  spec?: string;
  /** The jobs as data. */
  jobs?: unknown;
  /** Return the group id at once; a detached process drives the batch. */
  detach?: boolean;
  /** Keep every fork a fork: job ran in; by default only the forks holding a winner's work (or a failed batch's failures) are kept. */
  keepForks?: boolean;
  /** Aborting it cancels the batch (a foreground batch's Ctrl-C). */
  signal?: AbortSignal;
}

/** A number of seconds in [min, max]; a refusal names the input as the caller's face spells it (`--timeout`, `timeoutSeconds`). */
function seconds(value: unknown, verb: string, key: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
    throw new EngineError('BAD_ARGUMENT', `${inputRef(key)} takes a number of seconds from ${min} to ${max}`, {
      hint: `give a number in that range, e.g. ${inputRef(key, Math.max(min, 1))}`,
      inputsOf: verb,
    });
  return value;
}

function wholeNumber(value: unknown, key: 'quorum' | 'concurrency', min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw new EngineError('BAD_ARGUMENT', `${inputRef(key)} takes a whole number from ${min} to ${max}`, {
      hint:
        key === 'quorum'
          ? `${inputRef('quorum')} is how many jobs must succeed: at most the number of jobs (${max}), e.g. ${inputRef('quorum', Math.min(2, max))}`
          : `give a whole number in that range, e.g. ${inputRef(key, min)}`,
      inputsOf: 'batch',
    });
  return value;
}

/** Validates everything, records the group and its members in one commit, then drives it here or in a detached process. */
export async function startBatch(ctx: EngineContext, input: BatchInput): Promise<ResultPackage> {
  // Each refusal names the inputs as the caller typed them: `--strategy quorum --quorum K` on the CLI, strategy and quorum
  // fields on MCP and the library (EngineError inputsOf), never "the quorum strategy" or "a quorum" in words of no face.
  if (!STRATEGIES.includes(input.strategy))
    throw new EngineError(
      'BAD_ARGUMENT',
      input.strategy === undefined
        ? `a batch needs ${inputRef('strategy')}: one of ${STRATEGIES.join(', ')}`
        : `unknown ${inputRef('strategy')} ${JSON.stringify(String(input.strategy)).slice(0, 40)}: it is one of ${STRATEGIES.join(', ')}`,
      {
        hint: 'all: every job must succeed; allSettled: wait for all; race: the first to end decides; any: the first success; quorum: that many successes',
        inputsOf: 'batch',
      },
    );
  const members = await readBatchSpec(input);
  const n = members.length;
  const quorum = wholeNumber(input.quorum, 'quorum', 1, n);
  if (input.strategy === 'quorum' && quorum === undefined)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('strategy', 'quorum')} needs ${inputRef('quorum')}: how many successes decide`, {
      hint: `add ${inputRef('quorum')} from 1 to ${n} (the number of jobs), e.g. ${inputRef('quorum', Math.min(2, n))}`,
      inputsOf: 'batch',
    });
  if (input.strategy !== 'quorum' && input.quorum !== undefined)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('quorum')} is only for ${inputRef('strategy', 'quorum')}, not ${inputRef('strategy', input.strategy)}`, {
      hint: `leave ${inputRef('quorum')} out, or choose ${inputRef('strategy', 'quorum')}`,
      inputsOf: 'batch',
    });
  const concurrency = wholeNumber(input.concurrency, 'concurrency', 1, MAX_BATCH_CONCURRENCY) ?? 1;
  const timeout = seconds(input.timeoutSeconds, 'batch', 'timeoutSeconds', 0.001, 86_400);
  const cleanup = seconds(input.cleanupTimeoutSeconds, 'batch', 'cleanupTimeoutSeconds', 0.001, 3600) ?? DEFAULT_CLEANUP_TIMEOUT_SECONDS;
  // Every workspace is checked before anything is recorded: an unknown one, or a fork on a provider without snapshots, refuses the whole batch.
  const checked = new Set<string>();
  for (const m of members) {
    const id = m.workspaceId ?? m.forkOf!;
    const key = `${m.forkOf !== null ? 'fork' : 'run'}:${id}`;
    if (checked.has(key)) continue;
    checked.add(key);
    const found = m.forkOf !== null ? (await requireSnapshots(ctx, id, 'a batch job with fork')).ws : requireLiveWorkspace(ctx, id);
    // Past its TTL it takes no job and gives no fork (a fork inherits the expiry): refused here, before anything is
    // recorded, rather than as one job's failure at launch while the batch's other jobs run.
    const ws = requireUnexpired(ctx, found, m.forkOf !== null ? 'nothing was run (a fork of it would inherit its expiry)' : 'nothing was run');
    // Each job is a detached run (it outlives the batch's driver): refused now if its provider cannot be.
    refuseUndetachable(ctx, ws.provider);
  }
  const groupId = `bg-${randomBytes(6).toString('hex')}`;
  const detach = input.detach === true;
  const me = currentOwner();
  batchRecords(ctx).insertGroup(
    {
      id: groupId,
      strategy: input.strategy,
      quorum: quorum ?? null,
      concurrency,
      timeoutMs: timeout === undefined ? null : Math.round(timeout * 1000),
      cleanupTimeoutMs: Math.round(cleanup * 1000),
      keepForks: input.keepForks === true,
      createdAt: ctx.clock.now(),
      driver: detach ? null : me,
    },
    members,
    ctx.traceId,
  );
  if (detach) {
    const driver = startDetachedDriver(ctx.home, groupId);
    // The spawned driver holds the seat from now (the same compare-and-set it would make itself, a no-op if it was first),
    // so the result, and any wait or status before the driver's first look, sees a live driver starting, never one gone.
    if (driver) batchRecords(ctx).adopt(groupId, null, driver);
    return batchResult(ctx, groupId, {
      verb: 'batch',
      // Its batch-wait (and batch-cancel) next steps come from batchResult, as for any unfinished batch: given here too, batch-wait was listed twice.
      lead: `batch ${groupId} started: a detached driver runs it`,
    });
  }
  await driveBatch(ctx, groupId, { onAbort: 'cancel', ...(input.signal ? { signal: input.signal } : {}) });
  // Answered only from a store still at its home, as a batch wait is: a batch can end because its home was moved.
  ctx.store().refuseIfMoved({ now: true });
  return batchResult(ctx, groupId, { verb: 'batch' });
}

/** `headspace batch wait GROUP` in a session of its own, no stdio of the caller's: it adopts the free seat and drives to the end. */
function startDetachedDriver(given: string, groupId: string): Owner | null {
  const home = absolutePath(given);
  // The supervisor's environment: where things are and headspace's settings, never the caller's other values.
  const child = spawn(process.execPath, [HEADSPACE_BIN, 'batch', 'wait', groupId], { detached: true, stdio: 'ignore', cwd: '/', env: supervisorEnv(home) });
  child.once('error', () => {});
  child.unref();
  // exec keeps the pid and its start time: this is the owner the driver will find itself to be.
  return child.pid === undefined ? null : { pid: child.pid, started: processStartTime(child.pid) };
}

export function requireGroup(ctx: EngineContext, groupId: string): GroupRecord {
  const group = typeof groupId === 'string' ? batchRecords(ctx).group(groupId) : undefined;
  if (!group) throw new EngineError('BAD_ID', `no batch ${String(groupId).slice(0, 70)}`, { hint: 'give the group id batch returned (bg-…)' });
  return group;
}

export async function batchStatus(ctx: EngineContext, input: { groupId: string }): Promise<ResultPackage> {
  requireGroup(ctx, input.groupId);
  return batchResult(ctx, input.groupId, { verb: 'batch-status' });
}

/**
 * Blocks until the batch has finished, driving it when no live process does
 * (the detached driver's way in, and how a batch whose driver died is
 * finished). A timeout (exit 4) leaves the batch as it is.
 */
export async function waitForBatch(ctx: EngineContext, input: { groupId: string; timeoutSeconds?: number; signal?: AbortSignal }): Promise<ResultPackage> {
  requireGroup(ctx, input.groupId);
  const timeout = seconds(input.timeoutSeconds, 'batch-wait', 'timeoutSeconds', 0, 86_400);
  const until = timeout === undefined ? undefined : Date.now() + timeout * 1000;
  const records = batchRecords(ctx);
  let adoptedFrom: string | null = null;
  for (;;) {
    // What a wait read is answered only from a store still at its home (as wait's is): a batch can end because its
    // home was moved, in a file nobody else will read. Looked at before every read, so after every drive and wait;
    // the first look repeats the engine's own at the call's start, a stat.
    ctx.store().refuseIfMoved({ now: true });
    const group = records.group(input.groupId)!;
    if (group.state === 'finished') return batchResult(ctx, input.groupId, { verb: 'batch-wait', ...(adoptedFrom ? { lead: adoptedFrom } : {}) });
    if (input.signal?.aborted)
      return batchResult(ctx, input.groupId, { verb: 'batch-wait', status: 'cancelled', lead: 'the wait was interrupted; the batch runs on' });
    if (until !== undefined && Date.now() >= until)
      return batchResult(ctx, input.groupId, { verb: 'batch-wait', status: 'timeout', lead: `the wait timed out after ${timeout} s; the batch runs on` });
    const previous = group.driver;
    if (tryAdopt(ctx, group)) {
      if (previous !== null && previous.pid !== process.pid) adoptedFrom = `its driver (pid ${previous.pid}) was gone: this call finished the batch`;
      await driveBatch(ctx, input.groupId, {
        onAbort: 'release',
        ...(input.signal ? { signal: input.signal } : {}),
        ...(until !== undefined ? { until } : {}),
      });
      continue;
    }
    reportBatchProgress(ctx, input.groupId);
    // Another process drives it: its commits move the store's change counter (a look at least every 200 ms anyway).
    await waitForChange(ctx, Math.max(Date.now() + 5, until ?? Infinity), input.signal, WAITER_POLL_MS);
    ctx.store().refuseIfMoved();
  }
}

/** Cancels the batch: queued jobs are never started, running ones are stopped; returns the batch as it ended (status cancelled, exit 5, unless it had finished already). */
export async function cancelBatch(ctx: EngineContext, input: { groupId: string }): Promise<ResultPackage> {
  const group = requireGroup(ctx, input.groupId);
  // A finished batch is left as it is: its own result and status (and so its exit code), said to be unchanged by this call.
  if (group.state === 'finished')
    return batchResult(ctx, input.groupId, {
      verb: 'batch-cancel',
      lead: `the batch had already finished (${group.status}) before this cancel, which changed nothing`,
    });
  const records = batchRecords(ctx);
  records.requestCancel(input.groupId, ctx.clock.now());
  // The driver sees the request on its next look; with none alive, this call drives the cancellation itself.
  const until = Date.now() + group.cleanupTimeoutMs + 10_000;
  for (;;) {
    // Each read it may answer from is from a store still at its home (as a batch wait's).
    ctx.store().refuseIfMoved({ now: true });
    const now = records.group(input.groupId)!;
    if (now.state === 'finished') return batchResult(ctx, input.groupId, { verb: 'batch-cancel' });
    if (tryAdopt(ctx, now)) await driveBatch(ctx, input.groupId, { onAbort: 'release' });
    else if (Date.now() > until)
      return batchResult(ctx, input.groupId, { verb: 'batch-cancel', lead: 'the cancel is recorded; the batch has not finished its cleanup yet' });
    else await waitForChange(ctx, Math.max(Date.now() + 5, until), undefined, WAITER_POLL_MS);
    ctx.store().refuseIfMoved();
  }
}
