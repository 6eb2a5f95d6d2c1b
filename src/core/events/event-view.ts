/**
 * How an event, a delivery and a subscription read in a result package: one
 * structured finding each, its one line in `text` and its fields for a
 * program. Built from the store's records only, so nothing but ids, status,
 * exit code and times can appear (#15: never a command, output, env or path).
 */
import type { StructuredFinding } from '../result/result-package.js';
import { isoTime } from '../result/package-parts.js';
import { describeSubscription, type Delivery, type JobEvent, type Subscription, type SubscriptionCounts } from '../store/event-queue.js';

/** An event as JSON: what `follow` prints one per line and what a webhook POSTs. */
export function eventJson(event: JobEvent): Record<string, string | number> {
  return {
    id: event.id,
    seq: event.seq,
    name: event.name,
    job_id: event.jobId,
    workspace_id: event.workspaceId,
    status: event.status,
    ...(event.exitCode === null ? {} : { exit_code: event.exitCode }),
    started_at: isoTime(event.startedAt)!,
    finished_at: isoTime(event.finishedAt)!,
  };
}

export function eventLine(event: JobEvent): string {
  const exit = event.exitCode === null ? '' : ` (exit ${event.exitCode})`;
  return `${event.id}: ${event.name}${exit}, job ${event.jobId} in ${event.workspaceId}, ended ${isoTime(event.finishedAt)}`;
}

export function eventFinding(event: JobEvent): StructuredFinding {
  return { kind: 'event', text: eventLine(event), ...eventJson(event) };
}

export function deliveryFinding(delivery: Delivery): StructuredFinding {
  const lease = delivery.leaseUntil === null ? {} : { lease_until: isoTime(delivery.leaseUntil)! };
  return {
    ...eventFinding(delivery.event),
    text: `${eventLine(delivery.event)}; ${delivery.state.replace('_', ' ')}, delivery ${delivery.deliveries}`,
    state: delivery.state,
    deliveries: delivery.deliveries,
    ...lease,
  };
}

export function subscriptionFinding(sub: Subscription, counts?: SubscriptionCounts): StructuredFinding {
  const tally = counts ? `; ${counts.pending} pending, ${counts.inFlight} in flight, ${counts.acked} acked, ${counts.dead} dead` : '';
  return {
    kind: 'subscription',
    text: `subscription ${sub.id}: ${describeSubscription(sub)}${sub.webhookUrl ? `, pushed to ${sub.webhookUrl}` : ''}${tally}`,
    id: sub.id,
    scope: sub.scope,
    ...(sub.target === null ? {} : { target: sub.target }),
    ...(sub.name === null ? {} : { event_name: sub.name }),
    max_deliveries: sub.maxDeliveries,
    created_at: isoTime(sub.createdAt)!,
    ...(sub.webhookUrl === null ? {} : { webhook_url: sub.webhookUrl }),
    ...(counts ? { pending: counts.pending, in_flight: counts.inFlight, acked: counts.acked, dead: counts.dead } : {}),
  };
}
