/**
 * The batch driver (#16): the one loop that launches a group's members,
 * watches their jobs' durable records, asks the join (join.ts) whether it has
 * decided, and then cancels the losers. Whoever holds the group's driver seat
 * runs it: the caller of a foreground batch, or the detached process a
 * non-blocking batch starts (`batch wait` on the group, which adopts a seat
 * whose holder is gone).
 *
 * Every member's job is a detached run (the home's shared supervisor owns
 * it), so the jobs outlive the driver; the driver owns only the join. Why it
 * is safe to lose the driver at any point:
 *  - a member is marked `launching` with its job id BEFORE the run is made:
 *    a successor finds the job by that id and watches it; no record means
 *    nothing ran, and only then is the member started (a first start, never
 *    a re-run);
 *  - the decision is recorded before cleanup, so a successor finishes the
 *    cleanup of the same decision instead of judging again.
 * A concurrency slot is a member whose job is not terminal: it is freed by
 * the job's terminal record, never by the launch returning.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { currentOwner, isOwnerAlive, type Owner } from '../store/owner.js';
import type { JobRecord } from '../store/sqlite-store.js';
import { withBytesSoFar } from '../run/job-result.js';
import type { ResultStatus } from '../status.js';
import { BatchRecords, type CleanupReport, type GroupRecord, type MemberRecord } from './batch-records.js';
import { settleForks } from './batch-forks.js';
import { byFinish, decideJoin, type JoinDecision, type MemberView } from './join.js';
import { WAITER_POLL_MS, waitForChange } from '../events/wait-for-change.js';

/** Between looks at the members' job records: a job's end is seen within this (one indexed read per running member). */
/** How a queued member's note starts when it waits for a busy workspace (batch-result.ts shows it while queued). */
export const WAITING = 'waiting:';
/** A loser's TERM grace before the kill: its work is unwanted, so short. */
const LOSER_GRACE_SECONDS = 0.25;

export type DriveEnd = 'finished' | 'timeout' | 'aborted' | 'not-driver';

export interface DriveOptions {
  /** Aborting it: `cancel` cancels the batch (a foreground batch's Ctrl-C); `release` gives the seat up, the batch runs on undriven until the next wait. */
  signal?: AbortSignal;
  onAbort: 'cancel' | 'release';
  /** Epoch ms after which the caller stops driving (a wait's timeout): the seat is released, the batch is left as it is. */
  until?: number;
}

export function batchRecords(ctx: EngineContext): BatchRecords {
  return new BatchRecords(ctx.store());
}

/**
 * The batches a loop of this process drives now, by store and group. The seat is held by a process (pid and start
 * time), so the seat alone cannot tell this process's loops apart: in a long-lived engine (serve, mcp) a second batch
 * wait on a batch this process drove found the seat its own and started a second loop beside the first, and both
 * launched the same queued member, each with a job id of its own. Process-wide on purpose, as the seat is.
 */
const drivenHere = new Set<string>();
const drivenKey = (ctx: EngineContext, groupId: string): string => `${ctx.store().path}\0${groupId}`;

/** Takes the driver's seat when it is free or its holder is dead; true when this process now drives and no loop of it already does. */
export function tryAdopt(ctx: EngineContext, group: GroupRecord, me: Owner = currentOwner()): boolean {
  if (group.state !== 'running') return false;
  if (drivenHere.has(drivenKey(ctx, group.id))) return false;
  if (group.driver && group.driver.pid === me.pid && group.driver.started === me.started) return true;
  if (group.driver && isOwnerAlive(group.driver)) return false;
  return batchRecords(ctx).adopt(group.id, group.driver, me);
}

/** How a member's note starts when its job's process died without recording the job's end (endLostMembers). */
export const LOST = "its job's process died without recording the job's end";

/** A member ended as lost (endLostMembers): its status is on its row, as a skipped member's, not its job's. */
export function lostMember(m: MemberRecord): boolean {
  return m.state === 'ended' && m.status !== null;
}

/** A member as the join sees it, from its row and its job's record. */
export function memberView(m: MemberRecord, job: JobRecord | undefined): MemberView {
  if (m.state === 'skipped' || lostMember(m)) return { index: m.index, name: m.name, jobId: m.jobId, done: true, status: m.status, finishedAt: m.endedAt };
  const done = job?.state === 'finished';
  return {
    index: m.index,
    name: m.name,
    jobId: m.jobId,
    done,
    status: done ? (job.status ?? 'infrastructure_failure') : null,
    finishedAt: done ? job.finishedAt : null,
  };
}

/** Drives the group until it is finished, the caller's `until` passes, or the signal aborts. The caller must hold the seat (tryAdopt). */
export async function driveBatch(ctx: EngineContext, groupId: string, options: DriveOptions): Promise<DriveEnd> {
  const key = drivenKey(ctx, groupId);
  if (drivenHere.has(key)) return 'not-driver';
  drivenHere.add(key);
  try {
    return await driveHeld(ctx, groupId, options);
  } finally {
    drivenHere.delete(key);
  }
}

async function driveHeld(ctx: EngineContext, groupId: string, options: DriveOptions): Promise<DriveEnd> {
  const records = batchRecords(ctx);
  const store = ctx.store();
  const me = currentOwner();
  // A cancel this driver asked for because its signal aborted (Ctrl-C, SIGTERM): said as an interrupt, not as batch cancel.
  let interrupted = false;
  for (;;) {
    const group = records.group(groupId)!;
    if (group.state === 'finished') return 'finished';
    if (!group.driver || group.driver.pid !== me.pid || group.driver.started !== me.started) return 'not-driver';
    if (options.signal?.aborted) {
      if (options.onAbort === 'release') {
        records.release(groupId, me);
        return 'aborted';
      }
      if (group.cancelRequestedAt === null) interrupted = true;
      records.requestCancel(groupId, ctx.clock.now());
    }
    if (options.until !== undefined && Date.now() >= options.until && group.cancelRequestedAt === null) {
      records.release(groupId, me);
      return 'timeout';
    }
    await endLostMembers(ctx, records, group);
    const members = settleMembers(ctx, records, group);
    const views = members.map((m) => memberView(m, m.jobId ? store.getJob(m.jobId) : undefined));
    const decision = judge(ctx, records.group(groupId)!, views, interrupted);
    if (decision) {
      records.markDecided(groupId, { status: decision.status, summary: decision.summary, winners: decision.winners.map((w) => w.index) }, ctx.clock.now());
      const cleanup = await cancelLosers(ctx, records, records.group(groupId)!, decision);
      // Then the forks that hold no answer go (batch-forks.ts), once their jobs are stopped; gone_ms times the stops alone.
      const forks = await settleForks(ctx, records.group(groupId)!, records.members(groupId), cleanup.errors);
      records.finish(groupId, forks ? { ...cleanup, forks } : cleanup, ctx.clock.now());
      return 'finished';
    }
    await launchIntoFreeSlots(ctx, records, group, members);
    reportBatchProgress(ctx, groupId);
    // Until another process commits (a job recorded or ended, a cancel asked for), the next look would find what this one
    // did: one read of the store's change counter every few ms instead (a look every 10 ms kept a fifth of a core busy
    // for a whole batch). Still a look at least every 200 ms, for a lost job's process and the progress of output, and
    // at the batch's own deadlines.
    // The batch's timeout is on the engine's clock, the caller's `until` on the host's: both as host time, and never
    // less than a few ms ahead, so a deadline already passed cannot make this loop spin.
    const timeoutAt = group.timeoutMs !== null ? Date.now() + (group.createdAt + group.timeoutMs - ctx.clock.now()) : Infinity;
    await waitForChange(ctx, Math.max(Date.now() + 5, Math.min(timeoutAt, options.until ?? Infinity)), options.signal, WAITER_POLL_MS);
    store.refuseIfMoved();
  }
}

/**
 * Brings each member's row up to its job's record: a running job that ended
 * is `ended`; a `launching` member (a launch cut short by a driver that died)
 * is `running` if its job was recorded, and `queued` again if not: no record
 * means nothing ran.
 */
function settleMembers(ctx: EngineContext, records: BatchRecords, group: GroupRecord): MemberRecord[] {
  const store = ctx.store();
  for (const m of records.members(group.id)) {
    if (m.state !== 'running' && m.state !== 'launching') continue;
    const job = m.jobId ? store.getJob(m.jobId) : undefined;
    if (!job) {
      if (m.state === 'launching')
        records.setMember(group.id, m.index, { state: 'queued', note: 'its launch was cut short before a job was recorded: started anew' });
      continue;
    }
    records.setMember(group.id, m.index, { state: job.state === 'finished' ? 'ended' : 'running' });
  }
  return records.members(group.id);
}

/**
 * A running member whose job's process (a detached run's supervisor) died
 * without recording the job's end: the job will never end by itself, and the
 * join (and every later member queued for its workspace, which the record
 * still holds) would wait forever. The job is stopped as `stop` stops such a
 * job (what remains of it is ended and its record reads cancelled, saying
 * its process was gone), and the member ends lost: infrastructure_failure,
 * naming the process. The job's end is read again after the death was seen:
 * a process records its job's end before it exits, so a record still running
 * then is lost for good, never a job that ended in between.
 */
async function endLostMembers(ctx: EngineContext, records: BatchRecords, group: GroupRecord): Promise<void> {
  const store = ctx.store();
  for (const m of records.members(group.id)) {
    if (m.state !== 'running' || m.jobId === null) continue;
    const job = store.getJob(m.jobId);
    if (job?.state !== 'running' || isOwnerAlive(job.owner)) continue;
    // A home moved away under the driver ends the supervisor too: that is the driver's end, not the member's loss.
    store.refuseIfMoved({ now: true });
    if (store.getJob(job.id)?.state !== 'running') continue;
    let failed = '';
    try {
      const { stopJob } = await import('../verbs/stop.js');
      const stopped = await stopJob(ctx, {
        workspaceId: job.workspaceId,
        jobId: job.id,
        apply: true,
        graceSeconds: 0,
        settleTimeoutMs: group.cleanupTimeoutMs,
      });
      // A stop that could not confirm every process of the job ended says so on the member, as the stop itself would.
      if (stopped.status === 'infrastructure_failure') failed = `; stopping what remained of it was not confirmed: ${stopped.outcome_summary}`;
    } catch (error) {
      failed = `; stopping what remained of it failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    records.setMember(group.id, m.index, {
      state: 'ended',
      status: 'infrastructure_failure',
      endedAt: ctx.clock.now(),
      note: `${LOST} (pid ${job.owner.pid})${failed}`,
    });
  }
}

/** A recorded decision (a driver that died mid-cleanup), a cancel, the batch's own timeout, or the strategy's join. */
function judge(ctx: EngineContext, group: GroupRecord, views: MemberView[], interrupted: boolean): JoinDecision | null {
  const ended = views.filter((v) => v.done).sort(byFinish);
  const last = ended[ended.length - 1] ?? { index: -1, name: 'none', jobId: null, done: true, status: null, finishedAt: ctx.clock.now() };
  if (group.status !== null) {
    // A successor finishing a recorded decision's cleanup keeps what decided it (the summary says), so gone_ms is named right.
    const summary = group.summary ?? '';
    const cause = summary.startsWith('interrupted')
      ? 'signal'
      : summary.startsWith('cancelled by')
        ? 'cancel'
        : summary.startsWith("the batch's timeout")
          ? 'timeout'
          : undefined;
    return { status: group.status, winners: [], decider: { ...last, finishedAt: group.decidedAt }, summary, ...(cause ? { cause } : {}) };
  }
  const joined = decideJoin(group.strategy, group.quorum, views);
  if (joined) return joined;
  const now = ctx.clock.now();
  const pending = views.length - ended.length;
  if (group.cancelRequestedAt !== null)
    return {
      status: 'cancelled',
      winners: [],
      decider: { ...last, finishedAt: now },
      cause: interrupted ? 'signal' : 'cancel',
      summary: interrupted
        ? `interrupted by a signal (Ctrl-C or SIGTERM) with ${pending} of ${views.length} jobs unfinished`
        : `cancelled by batch cancel with ${pending} of ${views.length} jobs unfinished`,
    };
  if (group.timeoutMs !== null && now - group.createdAt >= group.timeoutMs)
    return {
      status: 'timeout',
      winners: [],
      decider: { ...last, finishedAt: now },
      cause: 'timeout',
      summary: `the batch's timeout (${group.timeoutMs / 1000} s) ran out with ${pending} of ${views.length} jobs unfinished`,
    };
  return null;
}

async function launchIntoFreeSlots(ctx: EngineContext, records: BatchRecords, group: GroupRecord, members: MemberRecord[]): Promise<void> {
  let held = members.filter((m) => m.state === 'running' || m.state === 'launching').length;
  for (const m of members) {
    if (held >= group.concurrency) return;
    if (m.state !== 'queued') continue;
    if (await launch(ctx, records, group, m)) held++;
  }
}

/** Starts one member as a detached run; false when it did not take a slot (its workspace is busy: it stays queued). */
async function launch(ctx: EngineContext, records: BatchRecords, group: GroupRecord, m: MemberRecord): Promise<boolean> {
  const { runJob } = await import('../verbs/run.js');
  const jobId = m.jobId ?? ctx.ids('job');
  // The job id is durable before the run is made: a successor finds the job by it, and never starts it twice.
  records.setMember(group.id, m.index, { state: 'launching', jobId });
  try {
    let workspaceId = m.workspaceId;
    // A fork's id is recorded before the fork is made, so a recorded id with no workspace means the fork never happened
    // (its parent was busy, or a driver died mid-launch): it is forked now, never run in as if it existed.
    if (m.forkOf !== null && (workspaceId === null || !ctx.store().getWorkspace(workspaceId))) {
      workspaceId ??= ctx.ids('ws');
      const { forkWorkspace } = await import('../verbs/fork.js');
      records.setMember(group.id, m.index, { state: 'launching', workspaceId });
      await forkWorkspace(ctx, { workspaceId: m.forkOf, workspaceIds: [workspaceId] });
    }
    await runJob(ctx, { workspaceId: workspaceId!, argv: m.argv, jobId, detach: true });
    records.setMember(group.id, m.index, { state: 'running' });
    return true;
  } catch (error) {
    const code = error instanceof EngineError ? error.code : 'INTERNAL';
    // Another job holds the workspace's last slot (or, for a fork, runs in its parent): try again on a later look, as a slot
    // frees. The reason is kept, so a queued job, and one cancelled before it started, names what it waited for.
    if (code === 'WORKSPACE_BUSY' && !ctx.store().getJob(jobId)) {
      const message = error instanceof Error ? error.message : String(error);
      records.setMember(group.id, m.index, { state: 'queued', note: `${WAITING} ${message}` });
      return false;
    }
    if (ctx.store().getJob(jobId)) {
      records.setMember(group.id, m.index, { state: 'running' });
      return true;
    }
    const status: ResultStatus = code === 'POLICY_DENIED' ? 'policy_denied' : 'infrastructure_failure';
    const message = error instanceof Error ? error.message : String(error);
    records.setMember(group.id, m.index, { state: 'skipped', status, endedAt: ctx.clock.now(), note: `its launch was refused (${code}): ${message}` });
    return false;
  }
}

/**
 * Cancels what the decision left: queued members are never started;
 * running ones are stopped through the stop verb (the engine's one stop
 * path: recorded, then the provider kills the job's processes, then its
 * record reads cancelled), all at once, each bounded by the cleanup timeout.
 */
async function cancelLosers(ctx: EngineContext, records: BatchRecords, group: GroupRecord, decision: JoinDecision): Promise<CleanupReport> {
  const store = ctx.store();
  const members = settleMembers(ctx, records, group);
  let neverStarted = 0;
  const why =
    decision.cause === 'cancel'
      ? 'the batch was cancelled'
      : decision.cause === 'signal'
        ? 'the batch was interrupted by a signal'
        : decision.cause === 'timeout'
          ? "the batch's timeout ran out"
          : 'the join had decided';
  const after = decision.cause ?? 'decider';
  for (const m of members.filter((x) => x.state === 'queued' || x.state === 'launching')) {
    const waited = m.note?.startsWith(WAITING) ? ` (it was ${m.note.replace(WAITING, 'waiting because')})` : '';
    records.setMember(group.id, m.index, {
      state: 'skipped',
      status: 'cancelled',
      endedAt: ctx.clock.now(),
      note: `cancelled before it started: ${why}${waited}`,
    });
    neverStarted++;
  }
  const running = members.filter((m) => m.state === 'running' && m.jobId !== null);
  const errors: string[] = [];
  if (running.length === 0) return { gone_ms: null, stopped: [], never_started: neverStarted, errors, after };
  const { stopJob } = await import('../verbs/stop.js');
  const timeoutMs = group.cleanupTimeoutMs;
  const stops = running.map(async (m) => {
    const job = store.getJob(m.jobId!)!;
    try {
      // A short grace, not none: TERM ends most jobs within milliseconds, seen by polling, and lets a loser's TERM handler
      // run. (A kill with no grace once waited out its whole 5 s kill timeout for a job already exiting: the v1 freezer
      // waited for a FROZEN that the job's own runner, killing too, had thawed; cgroup-v1.ts now freezes in short slices.)
      await stopJob(ctx, {
        workspaceId: job.workspaceId,
        jobId: job.id,
        apply: true,
        graceSeconds: Math.min(LOSER_GRACE_SECONDS, timeoutMs / 4000),
        settleTimeoutMs: timeoutMs,
      });
    } catch (error) {
      errors.push(`job ${job.id}: the stop failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all(stops), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
  // Gone means the stops returned (the provider found the job's processes gone) and the records read terminal: timed when both hold.
  const goneAt = ctx.clock.now();
  let allGone = true;
  for (const m of running) {
    const job = store.getJob(m.jobId!)!;
    if (job.state !== 'finished') {
      allGone = false;
      errors.push(`job ${job.id}: still running when the cleanup timeout (${timeoutMs / 1000} s) ran out`);
    } else records.setMember(group.id, m.index, { state: 'ended' });
  }
  const from = decision.decider.finishedAt ?? goneAt;
  return { gone_ms: allGone ? Math.max(0, goneAt - from) : null, stopped: running.map((m) => m.jobId!), never_started: neverStarted, errors, after };
}

/** Between batch.progress events: one stat of each running job's log per look, as wait's output sizes. */
const PROGRESS_MS = 300;
const lastProgress = new WeakMap<EngineContext, { at: number; key: string }>();

/**
 * Where the batch stands, as an event for a progress reader (MCP batch-wait): its jobs done, running and queued, and the
 * output they kept so far. The jobs run in the supervisor, so no job.output reaches this engine; their logs are measured.
 */
export function reportBatchProgress(ctx: EngineContext, groupId: string): void {
  const previous = lastProgress.get(ctx);
  const now = Date.now();
  if (previous !== undefined && now - previous.at < PROGRESS_MS) return;
  const store = ctx.store();
  let done = 0;
  let running = 0;
  let queued = 0;
  let bytes = 0;
  for (const m of batchRecords(ctx).members(groupId)) {
    const job = m.jobId ? store.getJob(m.jobId) : undefined;
    if (m.state === 'skipped' || job?.state === 'finished') done++;
    else if (job) running++;
    else queued++;
    if (job) bytes += (job.state === 'finished' ? job.outputBytes : withBytesSoFar(job, ctx.logPath(job.id)).outputBytes) ?? 0;
  }
  const key = `${done}/${running}/${queued}/${bytes}`;
  lastProgress.set(ctx, { at: now, key });
  if (previous?.key === key) return;
  ctx.events.emit({ type: 'batch.progress', groupId, done, running, queued, bytes });
}
