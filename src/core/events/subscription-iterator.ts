/**
 * The library's consumer of a subscription (#15): `for await (const item of
 * engine.subscription({ subscriptionId }))`. It claims in batches, yields one
 * event at a time, and acknowledges an event when the consumer asks for the
 * next one (it moved on, so it handled it) or calls `item.ack()` itself.
 *
 * Nothing is lost when the consumer throws or breaks: the loop's return()
 * runs this generator's `finally`, which puts the event it was handling
 * (unless it called ack()) and the rest of the claimed batch back to
 * pending at once, each counted as delivered. So delivery is at least once:
 * a consumer that breaks after handling an event without ack() sees it again.
 * A consumer that dies outright (kill -9) loses nothing either: its events
 * come back when their lease ends.
 */
import type { EngineContext } from '../context.js';
import type { Delivery, JobEvent } from '../store/event-queue.js';
import { claimDeliveries } from '../verbs/events-claim.js';
import { validateSubscriptionId } from '../verbs/events-subscribe.js';

export interface SubscriptionIteratorInput {
  subscriptionId: string;
  /** Events claimed at once (default 10). */
  batch?: number;
  /** Each batch's lease (default 300 s): past it, unacknowledged events are claimable again. */
  leaseSeconds?: number;
  /** Ends the iteration (the current event is put back unless acknowledged). */
  signal?: AbortSignal;
}

export interface ClaimedEvent {
  event: JobEvent;
  /** How many times this event has been claimed, this time included. */
  deliveries: number;
  /** Acknowledge now (idempotent); otherwise moving on to the next event acknowledges it. */
  ack(): void;
}

export async function* iterateSubscription(ctx: EngineContext, input: SubscriptionIteratorInput): AsyncGenerator<ClaimedEvent, void, undefined> {
  const id = validateSubscriptionId(input.subscriptionId);
  const queue = ctx.store().events;
  queue.requireSubscription(id);
  let batch: Delivery[] = [];
  let current: Delivery | null = null;
  let acked = false;
  const ack = (delivery: Delivery) => {
    queue.ack(id, [delivery.event.id], ctx.clock.now());
  };
  try {
    while (!input.signal?.aborted) {
      if (batch.length === 0) {
        batch = await claimDeliveries(ctx, {
          subscriptionId: id,
          max: input.batch ?? 10,
          waitSeconds: 60,
          ...(input.leaseSeconds === undefined ? {} : { leaseSeconds: input.leaseSeconds }),
          ...(input.signal ? { signal: input.signal } : {}),
        });
        continue;
      }
      const delivery = batch.shift()!;
      current = delivery;
      acked = false;
      yield {
        event: delivery.event,
        deliveries: delivery.deliveries,
        ack: () => {
          if (acked) return;
          ack(delivery);
          acked = true;
        },
      };
      // The consumer asked for the next one: it is done with this one.
      if (!acked) ack(delivery);
      current = null;
    }
  } finally {
    const back = [...(current !== null && !acked ? [current] : []), ...batch].map((d) => d.event.id);
    if (back.length > 0) queue.requeue(id, { eventIds: back }, ctx.clock.now());
  }
}
