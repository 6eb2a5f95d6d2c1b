/**
 * `events ack`, `events requeue` and `events prune` (#15): what a consumer
 * and an operator do with claimed events. Each is one transaction; an id the
 * subscription never received refuses the whole call and changes nothing.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { ResultPackage, StructuredFinding } from '../result/result-package.js';
import { refusePushedSubscription } from './events-claim.js';
import { validateSubscriptionId } from './events-subscribe.js';

export interface EventsAckInput {
  subscriptionId: string;
  /** The event ids a claim returned. */
  eventIds: string[];
  /** Refuse a webhook subscription (an agent over MCP; see EventsClaimInput.pullOnly). */
  pullOnly?: boolean;
}

export async function ackEvents(ctx: EngineContext, input: EventsAckInput): Promise<ResultPackage> {
  const now = ctx.clock.now();
  if (input.pullOnly === true) refusePushedSubscription(ctx, input.subscriptionId, 'an acknowledgement');
  const ids = requireIds(input.eventIds, 'ack');
  const outcomes = ctx.store().events.ack(validateSubscriptionId(input.subscriptionId), ids, now);
  const duplicates = outcomes.filter((o) => o.outcome === 'duplicate').length;
  return buildResult({
    outcome_summary: `acknowledged ${outcomes.length - duplicates} event(s)${duplicates ? `; ${duplicates} duplicate(s) were already acknowledged` : ''}`,
    status: 'success',
    key_findings: outcomes.map((o): StructuredFinding => ({ kind: 'event', text: `${o.eventId}: ${o.outcome}`, id: o.eventId, outcome: o.outcome })),
    provenance: provenanceFor(ctx, 'events-ack', { startedAt: now, finishedAt: ctx.clock.now() }),
  });
}

export interface EventsRequeueInput {
  subscriptionId: string;
  /** Put these in-flight events back (a dead one named here is revived with a fresh count). */
  eventIds?: string[];
  /** Or: every event in flight for at least this many seconds. */
  staleSeconds?: number;
}

export async function requeueEvents(ctx: EngineContext, input: EventsRequeueInput): Promise<ResultPackage> {
  const now = ctx.clock.now();
  const named = input.eventIds !== undefined && input.eventIds.length > 0;
  if (named === (input.staleSeconds !== undefined)) {
    throw new EngineError('BAD_ARGUMENT', named ? 'requeue takes event ids or a staleness, not both' : 'requeue needs event ids or a staleness in seconds', {
      hint: 'name the events to put back, or give a staleness to put back every one claimed at least that many seconds ago',
    });
  }
  const outcomes = ctx
    .store()
    .events.requeue(
      validateSubscriptionId(input.subscriptionId),
      named ? { eventIds: requireIds(input.eventIds, 'requeue') } : { staleMs: input.staleSeconds! * 1000 },
      now,
    );
  const count = (o: string) => outcomes.filter((x) => x.outcome === o).length;
  const parts = [`requeued ${count('requeued')} event(s)`];
  if (count('dead')) parts.push(`${count('dead')} went to dead (delivered too often)`);
  if (count('revived')) parts.push(`${count('revived')} dead one(s) revived`);
  if (count('not_in_flight')) parts.push(`${count('not_in_flight')} not in flight, left as they were`);
  return buildResult({
    outcome_summary: parts.join('; '),
    status: 'success',
    key_findings: outcomes.map((o): StructuredFinding => ({
      kind: 'event',
      text: `${o.eventId}: ${o.outcome.replace(/_/g, ' ')}`,
      id: o.eventId,
      outcome: o.outcome,
    })),
    provenance: provenanceFor(ctx, 'events-requeue', { startedAt: now, finishedAt: ctx.clock.now() }),
  });
}

export interface EventsPruneInput {
  /** Remove acknowledged and dead deliveries settled, and events ended, at least this many seconds ago. */
  olderThanSeconds: number;
}

export async function pruneEvents(ctx: EngineContext, input: EventsPruneInput): Promise<ResultPackage> {
  const now = ctx.clock.now();
  if (typeof input.olderThanSeconds !== 'number' || !Number.isFinite(input.olderThanSeconds) || input.olderThanSeconds < 0) {
    throw new EngineError('BAD_ARGUMENT', 'prune needs an age: a number of seconds of at least 0', { hint: 'for example 604800 (a week)' });
  }
  const removed = ctx.store().events.prune(now - input.olderThanSeconds * 1000);
  return buildResult({
    outcome_summary: `pruned ${removed.events} event(s) and ${removed.deliveries} settled delivery record(s); events still pending or in flight are kept`,
    status: 'success',
    key_findings: [{ kind: 'prune', text: `${removed.events} event(s), ${removed.deliveries} delivery record(s) removed`, ...removed }],
    provenance: provenanceFor(ctx, 'events-prune', { startedAt: now, finishedAt: ctx.clock.now() }),
  });
}

function requireIds(ids: unknown, verb: string): string[] {
  if (!Array.isArray(ids) || ids.length === 0 || ids.some((id) => typeof id !== 'string' || id === '')) {
    throw new EngineError('BAD_ARGUMENT', `${verb} needs at least one event id`, { hint: 'use the ids a claim returned (key_findings[].id)' });
  }
  return [...new Set(ids as string[])];
}
