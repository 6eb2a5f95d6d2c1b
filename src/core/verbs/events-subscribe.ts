/**
 * `events subscribe`, `events ls` and `events unsubscribe` (#15): durable
 * subscriptions to job terminal events. A subscription lives in the state
 * store until unsubscribed; its events wait there, pending, whoever is or
 * is not running.
 */
import { randomBytes } from 'node:crypto';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { validateId } from '../ids.js';
import { nextAction } from '../next-action.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { ResultPackage } from '../result/result-package.js';
import { EVENT_NAME_LIST, type EventName, type Subscription } from '../store/event-queue.js';
import { subscriptionFinding } from '../events/event-view.js';
import { checkWebhookUrl, createWebhookSecret } from '../events/webhook.js';

export interface EventsSubscribeInput {
  /** Events of this job only; a job that already ended replays its event once. */
  jobId?: string;
  /** Events of this workspace's jobs, from now on. */
  workspaceId?: string;
  /** Events of every job, from now on (history is not replayed). */
  all?: boolean;
  /** The subscription's id (a durable consumer's name); subscribing again with the same filter returns it. Default: a fresh id. */
  name?: string;
  /** Only events of this name (job.failed, …). */
  event?: string;
  /** Deliveries before an unacknowledged event goes to dead (default 5). */
  maxDeliveries?: number;
  /** Push each event by HTTP POST to this URL (loopback only unless allowRemote). */
  webhook?: string;
  /** With webhook: accept a URL beyond this machine. */
  allowRemote?: boolean;
}

export const DEFAULT_MAX_DELIVERIES = 5;

export async function subscribeEvents(ctx: EngineContext, input: EventsSubscribeInput): Promise<ResultPackage> {
  const chosen = [input.jobId !== undefined, input.workspaceId !== undefined, input.all === true].filter(Boolean).length;
  if (chosen !== 1) {
    throw new EngineError('BAD_ARGUMENT', chosen === 0 ? 'subscribe needs what to follow' : 'subscribe follows one of a job, a workspace or all jobs', {
      hint: `name exactly one: a job (${inputRef('jobId')}), a workspace (${inputRef('workspaceId')}), or all jobs (${inputRef('all')})`,
      inputsOf: 'events-subscribe',
    });
  }
  if (input.event !== undefined && !EVENT_NAME_LIST.includes(input.event as EventName)) {
    throw new EngineError('BAD_ARGUMENT', `unknown event name '${input.event.slice(0, 40)}'`, { hint: `choose one of: ${EVENT_NAME_LIST.join(', ')}` });
  }
  if (input.allowRemote && input.webhook === undefined)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('allowRemote')} goes with ${inputRef('webhook')}`, {
      hint: `give the ${inputRef('webhook')} URL too`,
      inputsOf: 'events-subscribe',
    });
  const webhookUrl = input.webhook === undefined ? null : checkWebhookUrl(input.webhook, input.allowRemote === true);
  const scope = input.jobId !== undefined ? 'job' : input.workspaceId !== undefined ? 'workspace' : 'all';
  const target =
    input.jobId !== undefined ? validateId('job', input.jobId) : input.workspaceId !== undefined ? validateId('workspace', input.workspaceId) : null;
  const id = input.name === undefined ? `sub-${randomBytes(6).toString('hex')}` : validateSubscriptionId(input.name);
  const now = ctx.clock.now();
  const wanted: Subscription = {
    id,
    scope,
    target,
    name: (input.event ?? null) as EventName | null,
    maxDeliveries: input.maxDeliveries ?? DEFAULT_MAX_DELIVERIES,
    createdAt: now,
    webhookUrl,
  };
  const store = ctx.store();
  const { subscription, created, replayed } = store.events.subscribe(wanted);
  const findings = [subscriptionFinding(subscription, store.events.counts(subscription.id))];
  const warnings: string[] = [];
  // The secret is made once, with the subscription, and shown only then.
  if (created && webhookUrl !== null) {
    const secret = createWebhookSecret(ctx.home, subscription.id);
    findings.push({ kind: 'webhook-secret', text: `webhook secret (shown once; verify X-Headspace-Signature with it): ${secret}`, secret });
    warnings.push('the webhook secret is shown only now: keep it; events are pushed only while a deliver loop runs for this subscription');
  }
  const what =
    scope === 'job'
      ? replayed
        ? `; job ${target} already ended: its event is pending`
        : `; job ${target}'s event will be pending when it ends`
      : '; only events from now on (history is not replayed)';
  return buildResult({
    outcome_summary: `${created ? 'subscribed' : 'already subscribed'}: ${subscription.id}${created ? what : ''}`,
    status: 'success',
    key_findings: findings,
    warnings,
    provenance: provenanceFor(ctx, 'events-subscribe', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention: [
      {
        kind: 'next-step',
        text: 'claim its events, waiting for the next one',
        action: nextAction('events-claim', { subscriptionId: subscription.id, waitSeconds: 30 }),
      },
    ],
  });
}

/** Subscription ids follow the same rule as workspace and job ids (safe in argv, files and markdown). */
export function validateSubscriptionId(id: string): string {
  try {
    return validateId('job', id);
  } catch {
    throw new EngineError('BAD_ID', `${JSON.stringify(String(id).slice(0, 70))} is not a valid subscription id`, {
      hint: 'ids are 1–64 characters: a letter or digit, then letters, digits, ".", "_" or "-" (no "..")',
    });
  }
}

export async function listSubscriptions(ctx: EngineContext): Promise<ResultPackage> {
  const now = ctx.clock.now();
  const subs = ctx.store().events.listSubscriptions();
  return buildResult({
    outcome_summary: subs.length === 0 ? 'no event subscriptions' : `${subs.length} event subscription(s)`,
    status: 'success',
    key_findings: subs.map((s) => subscriptionFinding(s, s.counts)),
    provenance: provenanceFor(ctx, 'events-ls', { startedAt: now, finishedAt: ctx.clock.now() }),
  });
}

export interface EventsUnsubscribeInput {
  subscriptionId: string;
}

export async function unsubscribeEvents(ctx: EngineContext, input: EventsUnsubscribeInput): Promise<ResultPackage> {
  const now = ctx.clock.now();
  const store = ctx.store();
  const sub = store.events.requireSubscription(validateSubscriptionId(input.subscriptionId));
  const counts = store.events.counts(sub.id);
  store.events.unsubscribe(sub.id);
  const { removeWebhookSecret } = await import('../events/webhook.js');
  removeWebhookSecret(ctx.home, sub.id);
  const dropped = counts.pending + counts.inFlight;
  return buildResult({
    outcome_summary: `unsubscribed ${sub.id}${dropped ? `; ${dropped} unacknowledged event(s) were dropped with it` : ''}`,
    status: 'success',
    key_findings: [subscriptionFinding(sub, counts)],
    provenance: provenanceFor(ctx, 'events-unsubscribe', { startedAt: now, finishedAt: ctx.clock.now() }),
  });
}
