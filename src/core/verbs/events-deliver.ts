/**
 * `events deliver` (#15): the push half of a webhook subscription. Nothing
 * pushes on its own: a foreground CLI process cannot be assumed to live
 * after its job, so delivery happens exactly while this loop runs (the CLI
 * `events deliver SUB`, or a library caller). It claims like any consumer,
 * POSTs each event signed (webhook.ts), acknowledges on a 2xx only, and on
 * anything else leaves the event in flight with a short lease (the back-off,
 * 250 ms doubling): when the lease ends the event is claimable again, by this
 * loop or by a pull consumer, and counts a delivery each time, so one that
 * keeps failing ends dead like any other.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { attentionItem, type ResultPackage } from '../result/result-package.js';
import { nextAction } from '../next-action.js';
import type { Delivery } from '../store/event-queue.js';
import { eventJson } from '../events/event-view.js';
import { readWebhookSecret, retryDelayMs, signWebhook } from '../events/webhook.js';
import { waitForChange } from '../events/wait-for-change.js';
import { claimDeliveries } from './events-claim.js';
import { validateSubscriptionId } from './events-subscribe.js';

export interface EventsDeliverInput {
  subscriptionId: string;
  /** Stop after this many seconds; default: until the signal aborts. */
  forSeconds?: number;
  /** Stop as soon as nothing is claimable (a one-off pass). */
  once?: boolean;
  /** Each POST's time limit (default 10 s). */
  timeoutSeconds?: number;
  signal?: AbortSignal;
  /** Called after each attempt. */
  onAttempt?: (attempt: { eventId: string; ok: boolean; status: number | null }) => void;
}

export async function deliverEvents(ctx: EngineContext, input: EventsDeliverInput): Promise<ResultPackage> {
  const startedAt = ctx.clock.now();
  const id = validateSubscriptionId(input.subscriptionId);
  const queue = ctx.store().events;
  const sub = queue.requireSubscription(id);
  if (sub.webhookUrl === null) {
    throw new EngineError('BAD_ARGUMENT', `subscription ${id} has no webhook`, { hint: 'claim its events instead, or subscribe with a webhook' });
  }
  const secret = readWebhookSecret(ctx.home, id);
  const until = input.forSeconds === undefined ? Number.POSITIVE_INFINITY : Date.now() + input.forSeconds * 1000;
  let delivered = 0;
  let failed = 0;
  while (!input.signal?.aborted && Date.now() < until) {
    const claimed = await claimDeliveries(ctx, { subscriptionId: id, max: 10, leaseSeconds: 30 });
    for (const delivery of claimed) {
      const status = await post(sub.webhookUrl, secret, delivery, (input.timeoutSeconds ?? 10) * 1000, input.signal);
      const ok = status !== null && status >= 200 && status < 300;
      input.onAttempt?.({ eventId: delivery.event.id, ok, status });
      if (ok) {
        queue.ack(id, [delivery.event.id], ctx.clock.now());
        delivered++;
      } else {
        queue.deferRetry(id, delivery.event.id, ctx.clock.now() + retryDelayMs(delivery.deliveries));
        failed++;
      }
    }
    if (claimed.length > 0) continue;
    const next = queue.nextLeaseEnd(id);
    if (input.once && next === null) break;
    const wake = Math.min(until, next === null ? Date.now() + 60_000 : Date.now() + Math.max(0, next - ctx.clock.now()));
    await waitForChange(ctx, wake, input.signal);
  }
  const counts = queue.counts(id);
  return buildResult({
    outcome_summary: `delivered ${delivered} event(s) to ${sub.webhookUrl}; ${failed} attempt(s) failed (retried with back-off while the loop ran)`,
    status: 'success',
    key_findings: [
      {
        kind: 'delivery',
        text: `${delivered} delivered, ${failed} failed attempts; now ${counts.pending} pending, ${counts.inFlight} in flight, ${counts.dead} dead`,
        delivered,
        failed_attempts: failed,
        pending: counts.pending,
        in_flight: counts.inFlight,
        dead: counts.dead,
      },
    ],
    // A delivery loop that failed must not read as a clean success (a receiver down for 4 s sent events to dead silently, new-user review).
    warnings: [
      ...(failed > 0 ? [`${failed} POST attempt(s) to ${sub.webhookUrl} failed (refused, timed out or not 2xx)`] : []),
      ...(counts.dead > 0
        ? [`${counts.dead} event(s) of this subscription are dead: delivered the maximum number of times without a 2xx; they are not retried until requeued`]
        : []),
    ],
    attention:
      counts.dead > 0
        ? [
            attentionItem('dead-event', `${counts.dead} dead event(s): fix the receiver, then requeue them and deliver again`, {
              action: nextAction('events-requeue', { subscriptionId: id }, ['eventIds']),
            }),
          ]
        : [],
    provenance: provenanceFor(ctx, 'events-deliver', { startedAt, finishedAt: ctx.clock.now() }),
  });
}

/** One signed POST; the HTTP status, or null when nothing came back (refused, timed out). */
async function post(url: string, secret: string, delivery: Delivery, timeoutMs: number, signal?: AbortSignal): Promise<number | null> {
  const body = JSON.stringify({ subscription_id: delivery.subscriptionId, delivery: delivery.deliveries, event: eventJson(delivery.event) });
  const timestamp = Date.now();
  // The caller's signal or the time limit, whichever comes first.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-headspace-event-id': delivery.event.id,
        'x-headspace-timestamp': String(timestamp),
        'x-headspace-signature': signWebhook(secret, timestamp, body),
      },
      body,
      redirect: 'manual',
      signal: controller.signal,
    });
    await response.body?.cancel().catch(() => undefined);
    return response.status;
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
