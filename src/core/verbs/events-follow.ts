/**
 * `events follow` (#15): a view of events as they are recorded, for a
 * person or a script. It claims and acknowledges nothing: subscriptions are
 * untouched. It starts at the current end (afterSeq to start elsewhere) and
 * runs until its signal aborts (the CLI's Ctrl-C) or forSeconds pass.
 */
import type { EngineContext } from '../context.js';
import { validateId } from '../ids.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { ResultPackage } from '../result/result-package.js';
import type { JobEvent } from '../store/event-queue.js';
import { waitForChange } from '../events/wait-for-change.js';

export interface EventsFollowInput {
  /** Only this workspace's jobs. */
  workspaceId?: string;
  /** Start after this sequence number (0: from the oldest kept); default: the current end. */
  afterSeq?: number;
  /** Stop after this many seconds; default: until the signal aborts. */
  forSeconds?: number;
  signal?: AbortSignal;
  /** Called with each event, in sequence order. */
  onEvent?: (event: JobEvent) => void;
}

/** Events as they are recorded, in order: the library's view. */
export async function* followEventStream(ctx: EngineContext, input: EventsFollowInput): AsyncGenerator<JobEvent> {
  const queue = ctx.store().events;
  const workspaceId = input.workspaceId === undefined ? null : validateId('workspace', input.workspaceId);
  let seq = input.afterSeq ?? queue.lastSeq();
  const until = input.forSeconds === undefined ? Number.POSITIVE_INFINITY : Date.now() + input.forSeconds * 1000;
  while (!input.signal?.aborted) {
    const batch = queue.eventsAfter(seq, workspaceId, 100);
    for (const event of batch) {
      seq = event.seq;
      yield event;
    }
    if (batch.length > 0) continue;
    if (Date.now() >= until) return;
    await waitForChange(ctx, Math.min(until, Date.now() + 60_000), input.signal);
  }
}

export async function followEvents(ctx: EngineContext, input: EventsFollowInput = {}): Promise<ResultPackage> {
  const startedAt = ctx.clock.now();
  let count = 0;
  for await (const event of followEventStream(ctx, input)) {
    count++;
    input.onEvent?.(event);
  }
  return buildResult({
    outcome_summary: `followed ${count} event(s); nothing was claimed or acknowledged`,
    status: 'success',
    provenance: provenanceFor(ctx, 'events-follow', { startedAt, finishedAt: ctx.clock.now() }),
  });
}
