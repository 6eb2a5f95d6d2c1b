/**
 * The CLI shape of the events verbs (#15): each is `headspace events
 * <sub-verb>` (its `words`), with the flags the issue names (--job,
 * --workspace, --wait, --stale, --older-than 7d).
 */
import { EngineError } from '../core/errors.js';
import type { CliAdapter } from './verb-adapters.js';

const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** A duration: seconds, or a number with s, m, h, d or w (7d, 12h, 90m). */
export function parseDuration(raw: never, flag: string): number {
  const match = /^(\d{1,10}(?:\.\d{1,6})?)([smhdw]?)$/.exec(String(raw));
  if (!match) {
    throw new EngineError('BAD_ARGUMENT', `${flag} takes a duration such as 7d, 12h, 30m or 45 (seconds), not '${String(raw).slice(0, 40)}'`, {
      hint: `for example ${flag} 7d`,
    });
  }
  return Number(match[1]) * UNITS[match[2] || 's']!;
}

const EXIT_CODES_LINE =
  'Exit codes: 0 done (an empty claim too), 1 a bad argument or an unknown subscription or event id (nothing changed), 2 the state store is unavailable.';

export const EVENTS_CLI_ADAPTERS: Readonly<Record<string, CliAdapter>> = {
  'events-subscribe': {
    words: ['events', 'subscribe'],
    args: [],
    flags: {
      jobId: { flags: '--job <job>', description: 'events of this job (it may not have started yet); if it already ended, its event is replayed once' },
      workspaceId: { flags: '--workspace <workspace>', description: "events of this workspace's jobs, from now on" },
      all: { description: 'events of every job, from now on (history is not replayed)' },
      name: { flags: '--name <name>', description: 'the subscription id (a durable consumer name); the same name and filter again returns it' },
      event: { flags: '--event <name>', description: 'only events of this name: job.succeeded, job.failed, job.timed_out, job.cancelled, …' },
      maxDeliveries: { flags: '--max-deliveries <n>', description: 'claims of one event before, still unacknowledged, it goes to dead (default 5)' },
      webhook: { flags: '--webhook <url>', description: 'also push each event by signed HTTP POST (loopback only) while `events deliver` runs' },
      allowRemote: { description: 'with --webhook: accept a URL beyond this machine' },
    },
    explain: `Creates a durable subscription to jobs' terminal events, stored in the state store: one of --job J, --workspace W or --all. Every job end emits exactly one event (job.succeeded, job.failed, job.timed_out, job.cancelled, job.resource_exhausted, job.policy_denied, job.infrastructure_failed, job.inconclusive) carrying ids, status, exit code and times — never the command, its output, its environment or a path. A --job subscription to a job that already ended replays its event once; --workspace and --all see only events recorded after they were made. --name makes the id yours: subscribing again with the same name and filter returns the same subscription (a different filter is refused). --webhook URL (http or https on 127.0.0.1, ::1 or localhost, unless --allow-remote) prints a secret once, kept in HEADSPACE_HOME/events/webhooks/<subscription>.key (0600); events are POSTed only while \`headspace events deliver SUB\` runs. ${EXIT_CODES_LINE} A remote webhook without --allow-remote is exit 3.`,
  },
  'events-claim': {
    words: ['events', 'claim'],
    args: [['<subscription>', 'subscriptionId']],
    flags: {
      max: { flags: '--max <n>', description: 'at most this many events (default 10)' },
      waitSeconds: { flags: '--wait <seconds>', description: 'block up to this long for the first event (default 0: return at once)' },
      leaseSeconds: { flags: '--lease <seconds>', description: 'until then the events are yours; past it a claim takes them again (default 300)' },
    },
    explain: `Moves up to --max pending events of the subscription to in flight, in one transaction, so of several claimers at once each event goes to exactly one. With --wait S it blocks until an event arrives (within milliseconds of the job's end) or S seconds pass; Ctrl-C ends the wait. Each event carries its id, name, job_id, workspace_id, status, exit_code, times and its delivery count. Acknowledge each with \`events ack\` once handled; an event not acknowledged when its lease ends (--lease, default 300 s) is claimable again, and one claimed --max-deliveries times without an ack goes to dead (doctor reports it). ${EXIT_CODES_LINE}`,
  },
  'events-ack': {
    words: ['events', 'ack'],
    args: [
      ['<subscription>', 'subscriptionId'],
      ['<event...>', 'eventIds'],
    ],
    explain: `Acknowledges claimed events: they are never delivered to this subscription again. A second ack of an event reads duplicate (exit 0), not an error; an id this subscription never received refuses the whole call (exit 1) and acknowledges nothing. ${EXIT_CODES_LINE}`,
  },
  'events-requeue': {
    words: ['events', 'requeue'],
    args: [
      ['<subscription>', 'subscriptionId'],
      ['[event...]', 'eventIds'],
    ],
    flags: { staleSeconds: { flags: '--stale <seconds>', description: 'put back every event in flight at least this long (instead of naming them)' } },
    explain: `Puts in-flight events back to pending: the ones named, or with --stale S every one claimed S seconds ago or more. An event already claimed --max-deliveries times goes to dead instead. A dead event named explicitly is revived (pending, its count reset); --stale never touches dead ones. ${EXIT_CODES_LINE}`,
  },
  'events-prune': {
    words: ['events', 'prune'],
    args: [],
    flags: {
      olderThanSeconds: {
        flags: '--older-than <duration>',
        description: 'remove what settled at least this long ago: 7d, 12h, 30m or seconds (required)',
        parse: parseDuration,
      },
    },
    explain: `Removes acknowledged and dead deliveries settled, and events ended, longer ago than --older-than; an event some subscription still holds pending or in flight is never removed. A pruned event is not replayed to a later --job subscription. Sequence numbers are never reused. ${EXIT_CODES_LINE}`,
  },
  'events-ls': {
    words: ['events', 'ls'],
    args: [],
    explain: `Lists the subscriptions with their filter and their pending, in-flight, acknowledged and dead counts. ${EXIT_CODES_LINE}`,
  },
  'events-unsubscribe': {
    words: ['events', 'unsubscribe'],
    args: [['<subscription>', 'subscriptionId']],
    explain: `Removes a subscription, its deliveries and its webhook secret; its unacknowledged events are dropped with it (the events themselves stay for other subscriptions). ${EXIT_CODES_LINE}`,
  },
  'events-follow': {
    words: ['events', 'follow'],
    args: [],
    flags: {
      workspaceId: { flags: '--workspace <workspace>', description: "only this workspace's jobs" },
      afterSeq: { flags: '--after-seq <n>', description: 'start after this sequence number (0: every event kept); default: from now' },
      forSeconds: { flags: '--for <seconds>', description: 'stop after this many seconds (default: until interrupted)' },
    },
    explain: `Prints each event as one JSON line on stdout as it is recorded, until Ctrl-C (or --for), for a person or a script. It is a view: it claims and acknowledges nothing, and no subscription is touched. When it ends it prints how many events it followed on stderr, so stdout holds the event lines only; under --json that report is instead one more JSON line on stdout, the last (the result package). ${EXIT_CODES_LINE}`,
  },
  'events-deliver': {
    words: ['events', 'deliver'],
    args: [['<subscription>', 'subscriptionId']],
    flags: {
      forSeconds: { flags: '--for <seconds>', description: 'stop after this many seconds (default: until interrupted)' },
      once: { description: 'stop as soon as nothing is left to push or waiting for a retry' },
      timeoutSeconds: { flags: '--timeout <seconds>', description: "each POST's time limit (default 10)" },
    },
    explain: `Pushes a webhook subscription's events while it runs (nothing pushes otherwise: run it under a service manager, or use --once after jobs). Each event is claimed like any other, POSTed as JSON {subscription_id, delivery, event} with X-Headspace-Event-Id, X-Headspace-Timestamp and X-Headspace-Signature: sha256=HMAC-SHA256(secret, TIMESTAMP + "." + BODY) in hex, and acknowledged only on a 2xx. Anything else (an error status, a refused connection, a timeout) leaves it in flight for a back-off (250 ms doubling, at most 60 s), then it is claimable again, by this loop or a pull claim; each attempt counts a delivery, so one that keeps failing goes to dead. Redirects are not followed. ${EXIT_CODES_LINE}`,
  },
};
