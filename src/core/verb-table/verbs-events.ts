/**
 * The events verbs (#15), declared once like every verb (define-verb.ts).
 * The CLI shows them as `headspace events <sub-verb>` (cli/verb-adapters.ts
 * gives each its words); MCP offers only subscribe, claim and ack, which is
 * all an agent needs to wait on its jobs: requeue and prune are an
 * operator's repairs, ls and unsubscribe housekeeping, follow and deliver
 * long-running loops that no tool call should hold open. All of them stay
 * in the library.
 */
import { EVENT_NAME_LIST, type EventName, type JobEvent } from '../store/event-queue.js';
import { defineVerb, type Zod } from './define-verb.js';

const subscriptionIdField = (z: Zod) => z.string().describe('the subscription id, as events-subscribe returned it');
const eventIdsField = (z: Zod) => z.array(z.string().describe('an event id, as a claim returned it')).min(1);
const EVENT_NAMES = EVENT_NAME_LIST as readonly [EventName, ...EventName[]];

export const eventsSubscribeVerb = defineVerb({
  name: 'events-subscribe',
  method: 'subscribeEvents',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: true,
  title: 'Subscribe to job events',
  summary: "a durable subscription to jobs' terminal events (one job, a workspace, or all); a job that already ended replays its event once",
  description:
    "Subscribe to jobs' terminal events (one of jobId, workspaceId, all) so you can wait for them with events-claim instead of polling. A job that already ended replays its event once; workspace and all start from now. Same name and filter again returns the same subscription.",
  input: (z: Zod) =>
    z.strictObject({
      jobId: z.string().optional().describe('events of this job (it may not have started yet)'),
      workspaceId: z.string().optional().describe("events of this workspace's jobs, from now on"),
      all: z.boolean().optional().describe('true for events of every job, from now on'),
      name: z.string().optional().describe('the subscription id to use (a durable consumer name); default a fresh one'),
      event: z.enum(EVENT_NAMES).optional().describe('only events of this name'),
      maxDeliveries: z.int().min(1).max(100).optional().describe('claims of one event before, still unacknowledged, it goes to dead (default 5)'),
      webhook: z.string().optional().describe('also push each event by HTTP POST to this URL (loopback only unless allowRemote), while events-deliver runs'),
      allowRemote: z.boolean().optional().describe('with webhook: accept a URL beyond this machine'),
    }),
  // A model subscribes and claims; pushing events to a URL is a person's set-up.
  mcpOmits: ['webhook', 'allowRemote'],
  handler: async () => (await import('../verbs/events-subscribe.js')).subscribeEvents,
});

export const eventsClaimVerb = defineVerb<'events-claim', 'claimEvents', ReturnType<typeof claimInput>, { signal: AbortSignal; pullOnly: boolean }>({
  name: 'events-claim',
  method: 'claimEvents',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Claim job events',
  summary: "take a subscription's pending events (each goes to exactly one claimer), optionally waiting for the first",
  description:
    'Take pending events of a subscription, each to exactly one claimer, waiting up to waitSeconds for the first (none: an empty success). Each event: id, name (job.succeeded, job.failed, …), job_id, workspace_id, status, exit_code, times. Ack each once handled; unacked, it returns when the lease ends.',
  input: (z: Zod) => claimInput(z),
  // pullOnly: set by the MCP face (an agent), never a model's argument.
  runtimeKeys: ['signal', 'pullOnly'],
  mcpMaximum: { waitSeconds: 60 },
  handler: async () => (await import('../verbs/events-claim.js')).claimEvents,
});

function claimInput(z: Zod) {
  return z.strictObject({
    subscriptionId: subscriptionIdField(z),
    max: z.int().min(1).max(1000).optional().describe('at most this many events (default 10)'),
    waitSeconds: z.number().min(0).max(3600).optional().describe('block up to this long for the first event (default 0)'),
    leaseSeconds: z.number().min(1).max(86_400).optional().describe('until then the events are yours; past it a claim takes them again (default 300)'),
  });
}

export const eventsAckVerb = defineVerb<'events-ack', 'ackEvents', ReturnType<typeof ackInput>, { pullOnly: boolean }>({
  name: 'events-ack',
  method: 'ackEvents',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: true,
  title: 'Acknowledge job events',
  summary: 'acknowledge claimed events so they are never delivered again; a second ack reads duplicate',
  description: 'Acknowledge claimed events once handled, so they never come back; a second ack of one reads duplicate, not an error.',
  input: (z: Zod) => ackInput(z),
  runtimeKeys: ['pullOnly'],
  handler: async () => (await import('../verbs/events-settle.js')).ackEvents,
});

function ackInput(z: Zod) {
  return z.strictObject({ subscriptionId: subscriptionIdField(z), eventIds: eventIdsField(z).describe('the events to acknowledge') });
}

export const eventsRequeueVerb = defineVerb({
  name: 'events-requeue',
  method: 'requeueEvents',
  group: 'lifecycle',
  effect: 'writes',
  idempotent: false,
  title: 'Requeue claimed events',
  summary: 'put in-flight events back to pending (named, or all claimed long enough ago); past max deliveries they go to dead',
  description:
    'Put claimed, unacknowledged events back to pending: the ones named (a dead one named is revived), or every one claimed staleSeconds ago or more. One delivered max-deliveries times goes to dead instead.',
  input: (z: Zod) =>
    z.strictObject({
      subscriptionId: subscriptionIdField(z),
      eventIds: eventIdsField(z).optional().describe('the events to put back'),
      staleSeconds: z.number().min(0).max(31_536_000).optional().describe('or: every event in flight at least this long'),
    }),
  onMcp: false,
  handler: async () => (await import('../verbs/events-settle.js')).requeueEvents,
});

export const eventsPruneVerb = defineVerb({
  name: 'events-prune',
  method: 'pruneEvents',
  group: 'operator',
  effect: 'destroys',
  idempotent: true,
  title: 'Prune old events',
  summary: 'remove acknowledged and dead deliveries and ended events older than a duration; undelivered events are kept',
  description: 'Remove acknowledged and dead deliveries settled, and events ended, before olderThanSeconds ago; an event still pending or in flight is kept.',
  input: (z: Zod) =>
    z.strictObject({
      olderThanSeconds: z.number().min(0).max(3_153_600_000).describe('remove what settled at least this many seconds ago'),
    }),
  onMcp: false,
  handler: async () => (await import('../verbs/events-settle.js')).pruneEvents,
});

export const eventsLsVerb = defineVerb({
  name: 'events-ls',
  method: 'listSubscriptions',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'List event subscriptions',
  summary: 'list the event subscriptions with their pending, in-flight, acknowledged and dead counts',
  description: 'List the event subscriptions, each with its filter and its pending, in-flight, acked and dead counts.',
  input: (z: Zod) => z.strictObject({}),
  onMcp: false,
  handler: async () => (await import('../verbs/events-subscribe.js')).listSubscriptions,
});

export const eventsUnsubscribeVerb = defineVerb({
  name: 'events-unsubscribe',
  method: 'unsubscribeEvents',
  group: 'lifecycle',
  effect: 'destroys',
  idempotent: false,
  title: 'Remove an event subscription',
  summary: 'remove a subscription and its undelivered events (and its webhook secret)',
  description: 'Remove a subscription with its deliveries and webhook secret; its unacknowledged events are dropped with it.',
  input: (z: Zod) => z.strictObject({ subscriptionId: subscriptionIdField(z) }),
  onMcp: false,
  handler: async () => (await import('../verbs/events-subscribe.js')).unsubscribeEvents,
});

export const eventsFollowVerb = defineVerb<
  'events-follow',
  'followEvents',
  ReturnType<typeof followInput>,
  { signal: AbortSignal; onEvent: (event: JobEvent) => void }
>({
  name: 'events-follow',
  method: 'followEvents',
  group: 'lifecycle',
  effect: 'reads',
  idempotent: true,
  title: 'Follow job events',
  summary: 'print events as JSON lines as they are recorded, until interrupted; a view: it claims and acknowledges nothing',
  description: 'Report events as they are recorded until forSeconds or the signal; it claims and acknowledges nothing.',
  input: (z: Zod) => followInput(z),
  runtimeKeys: ['signal', 'onEvent'],
  onMcp: false,
  handler: async () => (await import('../verbs/events-follow.js')).followEvents,
});

function followInput(z: Zod) {
  return z.strictObject({
    workspaceId: z.string().optional().describe("only this workspace's jobs"),
    afterSeq: z.int().min(0).optional().describe('start after this sequence number (0: every event kept); default: from now'),
    forSeconds: z.number().positive().max(31_536_000).optional().describe('stop after this many seconds; default: until interrupted'),
  });
}

export const eventsDeliverVerb = defineVerb<
  'events-deliver',
  'deliverEvents',
  ReturnType<typeof deliverInput>,
  { signal: AbortSignal; onAttempt: (attempt: { eventId: string; ok: boolean; status: number | null }) => void }
>({
  name: 'events-deliver',
  method: 'deliverEvents',
  group: 'operator',
  effect: 'writes',
  idempotent: false,
  title: 'Push webhook events',
  summary: "push a webhook subscription's events by signed HTTP POST while it runs; ack on 2xx, retry with back-off otherwise",
  description: "Push a webhook subscription's events by signed POST while it runs: ack on 2xx, otherwise retried with back-off and still claimable.",
  input: (z: Zod) => deliverInput(z),
  runtimeKeys: ['signal', 'onAttempt'],
  onMcp: false,
  handler: async () => (await import('../verbs/events-deliver.js')).deliverEvents,
});

function deliverInput(z: Zod) {
  return z.strictObject({
    subscriptionId: subscriptionIdField(z),
    forSeconds: z.number().positive().max(31_536_000).optional().describe('stop after this many seconds; default: until interrupted'),
    once: z.boolean().optional().describe('stop as soon as nothing is left to push or waiting for a retry'),
    timeoutSeconds: z.number().positive().max(300).optional().describe("each POST's time limit (default 10)"),
  });
}
