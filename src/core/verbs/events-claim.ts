/**
 * `events claim` (#15): take a subscription's pending events, atomically
 * (one IMMEDIATE transaction: of several claimers at once each event goes to
 * exactly one), moving them to in flight under a lease. With a wait, block
 * until one arrives or the wait ends (an empty claim is a success).
 */
import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { ResultPackage } from '../result/result-package.js';
import { EngineError } from '../errors.js';
import type { Delivery } from '../store/event-queue.js';
import { deliveryFinding } from '../events/event-view.js';
import { waitForChange } from '../events/wait-for-change.js';
import { validateSubscriptionId } from './events-subscribe.js';

export interface EventsClaimInput {
  subscriptionId: string;
  /** At most this many events (default 10). */
  max?: number;
  /** Block up to this many seconds for the first event (default 0: return at once). */
  waitSeconds?: number;
  /** Until then the events are this claimer's; past it a claim takes them again (default 300). */
  leaseSeconds?: number;
  /** Ends a wait early (an empty claim). */
  signal?: AbortSignal;
  /**
   * Refuse a webhook subscription: its events are pushed by the operator's
   * `events deliver`, and an agent (MCP) claiming or acknowledging them would
   * keep the operator's alerts from ever going out (red team, host surfaces).
   */
  pullOnly?: boolean;
}

/** Refuses a webhook subscription to a pull-only caller (an agent over MCP), before anything is claimed or acknowledged. */
export function refusePushedSubscription(ctx: EngineContext, subscriptionId: string, verb: string): void {
  const sub = ctx.store().events.requireSubscription(validateSubscriptionId(subscriptionId));
  if (sub.webhookUrl === null) return;
  throw new EngineError('POLICY_DENIED', `subscription ${sub.id} pushes its events to a webhook; ${verb} here would take them from its receiver`, {
    hint: 'subscribe to the events you need under a name of your own (no webhook), and claim from that',
  });
}

export const DEFAULT_CLAIM_MAX = 10;
export const DEFAULT_LEASE_SECONDS = 300;

/** The claim itself, for the verb, the async iterator and the deliver loop. */
export async function claimDeliveries(ctx: EngineContext, input: EventsClaimInput): Promise<Delivery[]> {
  const queue = ctx.store().events;
  const id = validateSubscriptionId(input.subscriptionId);
  const max = input.max ?? DEFAULT_CLAIM_MAX;
  const leaseMs = (input.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  const until = Date.now() + (input.waitSeconds ?? 0) * 1000;
  for (;;) {
    // A claim is taken only from a store still at its home: one leased in a moved file could never be acked. Looked at
    // before every claim, so after every wait; the first look repeats the engine's own at the call's start, a stat.
    ctx.store().refuseIfMoved({ now: true });
    const claimed = queue.claim(id, max, ctx.clock.now(), leaseMs);
    if (claimed.length > 0 || Date.now() >= until || input.signal?.aborted) return claimed;
    // Cheap reads until something may be claimable; the write lock is taken only then.
    while (Date.now() < until && !input.signal?.aborted && !queue.hasClaimable(id, ctx.clock.now())) await waitForChange(ctx, until, input.signal);
  }
}

export async function claimEvents(ctx: EngineContext, input: EventsClaimInput): Promise<ResultPackage> {
  const startedAt = ctx.clock.now();
  if (input.pullOnly === true) refusePushedSubscription(ctx, input.subscriptionId, 'a claim');
  const claimed = await claimDeliveries(ctx, input);
  return buildResult({
    outcome_summary: claimed.length === 0 ? 'no events to claim' : `claimed ${claimed.length} event(s); ack each once handled`,
    status: 'success',
    key_findings: claimed.map(deliveryFinding),
    provenance: provenanceFor(ctx, 'events-claim', { startedAt, finishedAt: ctx.clock.now() }),
    attention:
      claimed.length === 0
        ? []
        : [
            {
              kind: 'next-step',
              text: 'acknowledge them once handled (unacknowledged, they come back when the lease ends)',
              action: nextAction('events-ack', { subscriptionId: input.subscriptionId }, ['eventIds']),
            },
          ],
  });
}
