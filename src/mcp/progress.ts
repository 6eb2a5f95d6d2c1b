/**
 * Progress notifications for a tool call that carries a progress token
 * (`_meta.progressToken`), so a client can keep a long call alive (#12 item
 * 19). The official SDK client cancels any request after 60 s by default;
 * with `resetTimeoutOnProgress: true` (and an `onprogress` handler, which is
 * what makes it send a token) every notification restarts that clock. A run
 * that prints nothing for minutes was cancelled at 60 s before this.
 *
 * What is sent comes from the engine's own typed events (job.started,
 * job.output; job.output-size from wait, whose jobs run in a supervisor) on
 * the call's engine, which serves this call alone: no side
 * channel. `progress` is the elapsed seconds (strictly increasing, as the
 * spec requires); `message` says what runs and how much it printed so far.
 * A heartbeat goes out every HEARTBEAT_MS whatever happens, and an extra one
 * when the output crosses a milestone (64 KiB, then each ×4) or a batch's
 * job starts or ends, at most one per MIN_GAP_MS (one that comes sooner is
 * sent when the gap has passed).
 */
import type { EngineEvent, EventBus } from '../core/events.js';

/** Well under the SDK's 60 s default, and rare enough to cost nothing. */
export const HEARTBEAT_MS = 5_000;
const MIN_GAP_MS = 1_000;
const FIRST_MILESTONE = 64 * 1024;

export interface ProgressUpdate {
  progress: number;
  message: string;
}

/**
 * Starts reporting; returns the function that stops it (call it when the
 * tool call settles). `send` failures are logged once and otherwise ignored:
 * a client that cannot take a notification must not fail the job.
 */
export function reportProgress(
  events: EventBus,
  send: (update: ProgressUpdate) => Promise<void>,
  log: (line: string) => void,
  now: () => number = Date.now,
): () => void {
  const started = now();
  let lastProgress = 0;
  let lastSent = started;
  let jobId: string | undefined;
  let outputBytes = 0;
  // wait (#15 review): each waited job's kept output, reported as totals by the engine; a job run here reports increments (job.output).
  const sizes = new Map<string, number>();
  const totalBytes = () => outputBytes + [...sizes.values()].reduce((a, b) => a + b, 0);
  // batch-wait (#16 review): the batch as a whole, never its first job alone.
  let batch: Extract<EngineEvent, { type: 'batch.progress' }> | undefined;
  let nextMilestone = FIRST_MILESTONE;
  let failed = false;

  // A change within MIN_GAP_MS of the last message waits for the gap, then goes out as things are by then. Dropped
  // instead, a job ending and the next starting a moment later were never told: the next heartbeat found both done.
  let deferred: ReturnType<typeof setTimeout> | undefined;
  const emitSoon = () => {
    const wait = MIN_GAP_MS - (now() - lastSent);
    if (wait <= 0) emit();
    else if (deferred === undefined) {
      deferred = setTimeout(emit, wait);
      deferred.unref();
    }
  };

  const emit = () => {
    if (deferred !== undefined) clearTimeout(deferred);
    deferred = undefined;
    const at = now();
    const progress = Math.max(Math.round((at - started) / 100) / 10, lastProgress + 0.1);
    lastProgress = Math.round(progress * 10) / 10;
    lastSent = at;
    const what =
      batch !== undefined
        ? `batch ${batch.groupId}: ${batch.done} done, ${batch.running} running, ${batch.queued} queued`
        : sizes.size > 1
          ? `${sizes.size} jobs running`
          : jobId === undefined
            ? 'working'
            : `job ${jobId} running`;
    const bytes = batch !== undefined ? batch.bytes : totalBytes();
    send({ progress: lastProgress, message: `${what}: ${lastProgress.toFixed(1)} s elapsed, ${bytes} bytes of output so far` }).catch((error: unknown) => {
      if (!failed) log(`headspace mcp: a progress notification could not be sent: ${error instanceof Error ? error.message : String(error)}`);
      failed = true;
    });
  };

  const milestone = () => {
    const total = totalBytes();
    if (total < nextMilestone) return;
    while (nextMilestone <= total) nextMilestone *= 4;
    emitSoon();
  };

  const unsubscribe = events.subscribe((event: EngineEvent) => {
    if (event.type === 'job.started' && jobId === undefined) {
      jobId = event.jobId;
      emit();
    } else if (event.type === 'job.output' && event.jobId === jobId) {
      outputBytes += event.bytes;
      milestone();
    } else if (event.type === 'batch.progress') {
      const changed = batch === undefined || batch.done !== event.done || batch.running !== event.running;
      batch = event;
      // A job starting or ending is news: sent at once (at most one per MIN_GAP_MS), not at the next heartbeat.
      if (changed) emitSoon();
    } else if (event.type === 'job.output-size') {
      jobId ??= event.jobId;
      sizes.set(event.jobId, event.bytes);
      milestone();
    }
  });
  const timer = setInterval(emit, HEARTBEAT_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    if (deferred !== undefined) clearTimeout(deferred);
    unsubscribe();
  };
}
