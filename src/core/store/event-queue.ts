/**
 * Durable job events (#15): the terminal event of every job, the
 * subscriptions that want them, and each subscription's claim/ack state of
 * each event. It shares the store's connection and transactions
 * (sqlite-store.ts builds it), so the terminal event is written in the same
 * commit as the job's terminal record.
 *
 * States of a delivery (one row per subscription and event):
 *   pending  → in_flight (claim: deliveries + 1, a lease)
 *   in_flight → acked (ack) | pending (requeue, or its lease expired and a
 *   claim takes it again) | dead (it was delivered max_deliveries times and
 *   comes back unacknowledged once more)
 * acked and dead are final until prune removes them.
 */
import type Database from 'better-sqlite3';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import type { ResultStatus } from '../status.js';
import type { JobRecord, Row } from './records.js';

export type EventName =
  | 'job.succeeded'
  | 'job.failed'
  | 'job.timed_out'
  | 'job.cancelled'
  | 'job.resource_exhausted'
  | 'job.policy_denied'
  | 'job.infrastructure_failed'
  | 'job.inconclusive';

/**
 * The event name of each terminal status. policy_denied has its own name
 * although a job refused by policy is refused before it is recorded today:
 * a record that ever carries it still ends in exactly one event.
 */
const EVENT_NAMES: Readonly<Record<Exclude<ResultStatus, 'running' | 'any_exhausted'>, EventName>> = Object.freeze({
  success: 'job.succeeded',
  failure: 'job.failed',
  timeout: 'job.timed_out',
  cancelled: 'job.cancelled',
  resource_exhausted: 'job.resource_exhausted',
  policy_denied: 'job.policy_denied',
  infrastructure_failure: 'job.infrastructure_failed',
  // A job that exited 0 but whose verification reached no verdict (#16).
  inconclusive: 'job.inconclusive',
});

export const EVENT_NAME_LIST: readonly EventName[] = Object.values(EVENT_NAMES);

export function eventNameOf(status: ResultStatus): EventName {
  if (status === 'running' || status === 'any_exhausted')
    throw new EngineError('INTERNAL', 'a running job has no terminal event', { hint: 'this is a bug in headspace: finishJob was given a non-terminal status' });
  return EVENT_NAMES[status];
}

/**
 * The event's id, from the job's id and start alone: the same job always
 * gets the same id (a second finish inserts nothing, the UNIQUE index says
 * so), and a job id used again in a workspace recreated under the same id
 * gets another.
 */
export function eventIdOf(jobId: string, startedAt: number): string {
  return `ev-${jobId}-${startedAt.toString(36)}`;
}

/** What an event carries: ids, status, exit code and times. Never the command, its output, its environment or a path. */
export interface JobEvent {
  seq: number;
  id: string;
  name: EventName;
  jobId: string;
  workspaceId: string;
  status: ResultStatus;
  exitCode: number | null;
  startedAt: number;
  finishedAt: number;
}

export type SubscriptionScope = 'job' | 'workspace' | 'all';

export interface Subscription {
  id: string;
  scope: SubscriptionScope;
  /** The job or workspace id; null for all. */
  target: string | null;
  /** Only events of this name; null for every name. */
  name: EventName | null;
  maxDeliveries: number;
  createdAt: number;
  webhookUrl: string | null;
}

export type DeliveryState = 'pending' | 'in_flight' | 'acked' | 'dead';

export interface Delivery {
  subscriptionId: string;
  event: JobEvent;
  state: DeliveryState;
  /** How many times a claim handed it out. */
  deliveries: number;
  claimedAt: number | null;
  leaseUntil: number | null;
}

export type AckOutcome = 'acked' | 'duplicate';
export type RequeueOutcome = 'requeued' | 'dead' | 'revived' | 'not_in_flight';

type Sql = (text: string) => Database.Statement;

/** The subscription counts doctor and events-ls report. */
export interface SubscriptionCounts {
  pending: number;
  inFlight: number;
  acked: number;
  dead: number;
}

export class EventQueue {
  private readonly sql: Sql;
  private readonly atomically: <T>(fn: () => T) => T;
  private readonly dataVersion: () => number;

  constructor(sql: Sql, atomically: <T>(fn: () => T) => T, dataVersion: () => number) {
    this.sql = sql;
    this.atomically = atomically;
    this.dataVersion = dataVersion;
  }

  /**
   * The job's one terminal event and its fan-out to every matching
   * subscription. Called by finishJob inside its transaction; a second call
   * for the same job inserts nothing (the id is UNIQUE) and fans out nothing.
   */
  recordTerminal(job: JobRecord): void {
    if (job.status === null || job.finishedAt === null) return;
    const inserted = this.sql(
      `INSERT INTO events (id, name, job_id, workspace_id, status, exit_code, started_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    ).run(eventIdOf(job.id, job.startedAt), eventNameOf(job.status), job.id, job.workspaceId, job.status, job.exitCode, job.startedAt, job.finishedAt);
    if (inserted.changes === 0) return;
    this.sql(
      `INSERT INTO event_deliveries (subscription_id, event_seq, state)
         SELECT s.id, ?, 'pending' FROM event_subscriptions s
          WHERE (s.scope = 'all' OR (s.scope = 'workspace' AND s.target = ?) OR (s.scope = 'job' AND s.target = ?))
            AND (s.name IS NULL OR s.name = ?)`,
    ).run(Number(inserted.lastInsertRowid), job.workspaceId, job.id, eventNameOf(job.status));
  }

  /**
   * Creates a subscription, or returns the one of that id when it asks for
   * the same events (a consumer that restarts subscribes again safely). A
   * job subscription replays the job's terminal event if it already ended,
   * once; a workspace or all subscription sees only events after it.
   */
  subscribe(sub: Subscription): { subscription: Subscription; created: boolean; replayed: number } {
    return this.atomically(() => {
      const existing = this.getSubscription(sub.id);
      if (existing) {
        if (existing.scope !== sub.scope || existing.target !== sub.target || existing.name !== sub.name || existing.webhookUrl !== sub.webhookUrl) {
          throw new EngineError('BAD_ARGUMENT', `subscription ${sub.id} already exists and asks for other events (${describeSubscription(existing)})`, {
            hint: 'choose another name, or subscribe again with the same filter',
          });
        }
        return { subscription: existing, created: false, replayed: 0 };
      }
      this.sql('INSERT INTO event_subscriptions (id, scope, target, name, max_deliveries, created_at, webhook_url) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        sub.id,
        sub.scope,
        sub.target,
        sub.name,
        sub.maxDeliveries,
        sub.createdAt,
        sub.webhookUrl,
      );
      const replayed =
        sub.scope === 'job'
          ? this.sql(
              `INSERT INTO event_deliveries (subscription_id, event_seq, state)
                 SELECT ?, seq, 'pending' FROM events WHERE job_id = ? AND (? IS NULL OR name = ?)`,
            ).run(sub.id, sub.target, sub.name, sub.name).changes
          : 0;
      return { subscription: sub, created: true, replayed };
    });
  }

  getSubscription(id: string): Subscription | undefined {
    const row = this.sql('SELECT * FROM event_subscriptions WHERE id = ?').get(id) as Row | undefined;
    return row ? toSubscription(row) : undefined;
  }

  listSubscriptions(): Array<Subscription & { counts: SubscriptionCounts }> {
    const rows = this.sql('SELECT * FROM event_subscriptions ORDER BY created_at, id').all() as Row[];
    return rows.map((row) => ({ ...toSubscription(row), counts: this.counts(String(row.id)) }));
  }

  counts(subscriptionId: string): SubscriptionCounts {
    const counts: SubscriptionCounts = { pending: 0, inFlight: 0, acked: 0, dead: 0 };
    for (const row of this.sql('SELECT state, COUNT(*) AS n FROM event_deliveries WHERE subscription_id = ? GROUP BY state').all(subscriptionId) as Row[]) {
      const n = Number(row.n);
      if (row.state === 'pending') counts.pending = n;
      else if (row.state === 'in_flight') counts.inFlight = n;
      else if (row.state === 'acked') counts.acked = n;
      else if (row.state === 'dead') counts.dead = n;
    }
    return counts;
  }

  unsubscribe(id: string): boolean {
    return this.sql('DELETE FROM event_subscriptions WHERE id = ?').run(id).changes > 0;
  }

  /** A subscription that must exist: SUBSCRIPTION_NOT_FOUND names how to list them. */
  requireSubscription(id: string): Subscription {
    const sub = this.getSubscription(id);
    if (!sub) {
      throw new EngineError('SUBSCRIPTION_NOT_FOUND', `no event subscription ${id}`, {
        hint: 'subscribe first (its id is in the result), or list the subscriptions',
        action: nextAction('events-ls'),
      });
    }
    return sub;
  }

  /**
   * Moves up to `max` claimable deliveries to in_flight with a lease, in one
   * IMMEDIATE transaction: two claimers never get the same event. Claimable:
   * pending, or in_flight with its lease expired. One whose lease expired
   * after its last allowed delivery goes to dead instead.
   */
  claim(subscriptionId: string, max: number, now: number, leaseMs: number): Delivery[] {
    return this.atomically(() => {
      const sub = this.requireSubscription(subscriptionId);
      this.sql(
        `UPDATE event_deliveries SET state = 'dead', settled_at = ?, lease_until = NULL
          WHERE subscription_id = ? AND state = 'in_flight' AND lease_until <= ? AND deliveries >= ?`,
      ).run(now, sub.id, now, sub.maxDeliveries);
      const seqs = (
        this.sql(
          `SELECT event_seq FROM event_deliveries
            WHERE subscription_id = ? AND (state = 'pending' OR (state = 'in_flight' AND lease_until <= ?))
            ORDER BY event_seq LIMIT ?`,
        ).all(sub.id, now, max) as Row[]
      ).map((r) => Number(r.event_seq));
      const take = this.sql(
        `UPDATE event_deliveries SET state = 'in_flight', deliveries = deliveries + 1, claimed_at = ?, lease_until = ?
          WHERE subscription_id = ? AND event_seq = ?`,
      );
      for (const seq of seqs) take.run(now, now + leaseMs, sub.id, seq);
      return seqs.map((seq) => this.delivery(sub.id, seq)!);
    });
  }

  /** Keeps an in-flight event from being claimed again until `until` (a failed push's back-off). */
  deferRetry(subscriptionId: string, eventId: string, until: number): void {
    this.sql(
      `UPDATE event_deliveries SET lease_until = ? WHERE subscription_id = ? AND state = 'in_flight' AND event_seq = (SELECT seq FROM events WHERE id = ?)`,
    ).run(until, subscriptionId, eventId);
  }

  /** When the first lease of the subscription's in-flight events ends; null when none is in flight. */
  nextLeaseEnd(subscriptionId: string): number | null {
    const row = this.sql(`SELECT MIN(lease_until) AS t FROM event_deliveries WHERE subscription_id = ? AND state = 'in_flight'`).get(subscriptionId) as Row;
    return row.t === null ? null : Number(row.t);
  }

  /** Whether a claim now would get anything (a cheap read: no write lock). */
  hasClaimable(subscriptionId: string, now: number): boolean {
    return Boolean(
      this.sql(`SELECT 1 FROM event_deliveries WHERE subscription_id = ? AND (state = 'pending' OR (state = 'in_flight' AND lease_until <= ?)) LIMIT 1`).get(
        subscriptionId,
        now,
      ),
    );
  }

  /** Changes whenever another connection commits: a waiting claim re-checks only then. */
  changeCounter(): number {
    return this.dataVersion();
  }

  /**
   * Acknowledges events, all or none: an id this subscription never received
   * refuses the whole call (EVENT_NOT_FOUND). A second ack of one reads
   * `duplicate`, never an error.
   */
  ack(subscriptionId: string, eventIds: readonly string[], now: number): Array<{ eventId: string; outcome: AckOutcome }> {
    return this.atomically(() => {
      const sub = this.requireSubscription(subscriptionId);
      const found = eventIds.map((eventId) => ({ eventId, row: this.deliveryById(sub.id, eventId) }));
      const unknown = found.filter((f) => !f.row).map((f) => f.eventId);
      if (unknown.length) throw eventNotFound(sub.id, unknown);
      return found.map(({ eventId, row }) => {
        if (row!.state === 'acked') return { eventId, outcome: 'duplicate' as const };
        this.sql(`UPDATE event_deliveries SET state = 'acked', settled_at = ?, lease_until = NULL WHERE subscription_id = ? AND event_seq = ?`).run(
          now,
          sub.id,
          row!.event.seq,
        );
        return { eventId, outcome: 'acked' as const };
      });
    });
  }

  /**
   * Puts in-flight events back to pending: the ones named, or every one
   * claimed at least `staleMs` ago. One already delivered max_deliveries
   * times goes to dead instead. A dead event named explicitly is revived
   * (pending, its count reset); --stale never touches dead ones. Named ids
   * the subscription never received refuse the whole call.
   */
  requeue(
    subscriptionId: string,
    which: { eventIds: readonly string[] } | { staleMs: number },
    now: number,
  ): Array<{ eventId: string; outcome: RequeueOutcome }> {
    return this.atomically(() => {
      const sub = this.requireSubscription(subscriptionId);
      let rows: Delivery[];
      if ('eventIds' in which) {
        const found = which.eventIds.map((eventId) => ({ eventId, row: this.deliveryById(sub.id, eventId) }));
        const unknown = found.filter((f) => !f.row).map((f) => f.eventId);
        if (unknown.length) throw eventNotFound(sub.id, unknown);
        rows = found.map((f) => f.row!);
      } else {
        rows = (
          this.sql(`SELECT event_seq FROM event_deliveries WHERE subscription_id = ? AND state = 'in_flight' AND claimed_at <= ? ORDER BY event_seq`).all(
            sub.id,
            now - which.staleMs,
          ) as Row[]
        ).map((r) => this.delivery(sub.id, Number(r.event_seq))!);
      }
      return rows.map((row) => {
        if (row.state === 'dead' && 'eventIds' in which) {
          // Named explicitly: an operator's decision to try a dead event again, with a fresh count.
          this.sql(`UPDATE event_deliveries SET state = 'pending', deliveries = 0, settled_at = NULL WHERE subscription_id = ? AND event_seq = ?`).run(
            sub.id,
            row.event.seq,
          );
          return { eventId: row.event.id, outcome: 'revived' as const };
        }
        if (row.state !== 'in_flight') return { eventId: row.event.id, outcome: 'not_in_flight' as const };
        const dead = row.deliveries >= sub.maxDeliveries;
        this.sql(`UPDATE event_deliveries SET state = ?, lease_until = NULL, settled_at = ? WHERE subscription_id = ? AND event_seq = ?`).run(
          dead ? 'dead' : 'pending',
          dead ? now : null,
          sub.id,
          row.event.seq,
        );
        return { eventId: row.event.id, outcome: dead ? ('dead' as const) : ('requeued' as const) };
      });
    });
  }

  /**
   * Removes what is settled and old: acked and dead deliveries settled at or
   * before `cutoff`, then events that ended at or before it and that no
   * subscription still holds pending or in flight. An undelivered event is
   * never pruned.
   */
  prune(cutoff: number): { deliveries: number; events: number } {
    return this.atomically(() => {
      const deliveries = this.sql(`DELETE FROM event_deliveries WHERE state IN ('acked', 'dead') AND settled_at <= ?`).run(cutoff).changes;
      const events = this.sql(`DELETE FROM events WHERE finished_at <= ? AND NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_seq = events.seq)`).run(
        cutoff,
      ).changes;
      return { deliveries, events };
    });
  }

  /** Every dead delivery, oldest first (doctor reports them). */
  deadDeliveries(): Delivery[] {
    const rows = this.sql(`SELECT subscription_id, event_seq FROM event_deliveries WHERE state = 'dead' ORDER BY settled_at, event_seq`).all() as Row[];
    return rows.map((r) => this.delivery(String(r.subscription_id), Number(r.event_seq))!);
  }

  /** Events after `seq`, oldest first (follow's view; it changes nothing). */
  eventsAfter(seq: number, workspaceId: string | null, limit: number): JobEvent[] {
    const rows = (
      workspaceId === null
        ? this.sql('SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?').all(seq, limit)
        : this.sql('SELECT * FROM events WHERE seq > ? AND workspace_id = ? ORDER BY seq LIMIT ?').all(seq, workspaceId, limit)
    ) as Row[];
    return rows.map(toEvent);
  }

  /** The highest sequence number ever given (AUTOINCREMENT: never reused, even after prune). */
  lastSeq(): number {
    const row = this.sql("SELECT seq FROM sqlite_sequence WHERE name = 'events'").get() as Row | undefined;
    return row ? Number(row.seq) : 0;
  }

  /** Every event of a job (one per run of that id). */
  eventsOfJob(jobId: string): JobEvent[] {
    return (this.sql('SELECT * FROM events WHERE job_id = ? ORDER BY seq').all(jobId) as Row[]).map(toEvent);
  }

  private deliveryById(subscriptionId: string, eventId: string): Delivery | undefined {
    const row = this.sql('SELECT seq FROM events WHERE id = ?').get(eventId) as Row | undefined;
    return row ? this.delivery(subscriptionId, Number(row.seq)) : undefined;
  }

  private delivery(subscriptionId: string, seq: number): Delivery | undefined {
    const row = this.sql(
      `SELECT d.subscription_id, d.state, d.deliveries, d.claimed_at, d.lease_until, e.*
         FROM event_deliveries d JOIN events e ON e.seq = d.event_seq WHERE d.subscription_id = ? AND d.event_seq = ?`,
    ).get(subscriptionId, seq) as Row | undefined;
    if (!row) return undefined;
    return {
      subscriptionId: String(row.subscription_id),
      event: toEvent(row),
      state: row.state as DeliveryState,
      deliveries: Number(row.deliveries),
      claimedAt: row.claimed_at === null ? null : Number(row.claimed_at),
      leaseUntil: row.lease_until === null ? null : Number(row.lease_until),
    };
  }
}

export function describeSubscription(sub: Pick<Subscription, 'scope' | 'target' | 'name'>): string {
  const what = sub.scope === 'all' ? 'every job' : `${sub.scope} ${sub.target}`;
  return sub.name ? `${what}, ${sub.name} only` : what;
}

function eventNotFound(subscriptionId: string, ids: string[]): EngineError {
  return new EngineError('EVENT_NOT_FOUND', `subscription ${subscriptionId} never received ${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`, {
    hint: 'use the event ids a claim returned for this subscription; nothing was changed',
  });
}

function toEvent(row: Row): JobEvent {
  return {
    seq: Number(row.seq),
    id: String(row.id),
    name: row.name as EventName,
    jobId: String(row.job_id),
    workspaceId: String(row.workspace_id),
    status: row.status as ResultStatus,
    exitCode: row.exit_code === null ? null : Number(row.exit_code),
    startedAt: Number(row.started_at),
    finishedAt: Number(row.finished_at),
  };
}

function toSubscription(row: Row): Subscription {
  return {
    id: String(row.id),
    scope: row.scope as SubscriptionScope,
    target: row.target === null ? null : String(row.target),
    name: row.name === null ? null : (row.name as EventName),
    maxDeliveries: Number(row.max_deliveries),
    createdAt: Number(row.created_at),
    webhookUrl: row.webhook_url === null ? null : String(row.webhook_url),
  };
}
