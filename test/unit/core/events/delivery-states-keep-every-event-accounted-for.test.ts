/**
 * The delivery state machine, under seeded random schedules of job ends,
 * claims (with leases), acks, requeues (named and stale), revivals and time
 * passing, on two subscriptions of one real store: every event a
 * subscription should have is in exactly one state (pending, in flight,
 * acked, dead) — none lost, none doubled; an acked event is never claimed
 * again; an event is never handed to a claimer more than max-deliveries
 * times without an ack (a revival starts a fresh count); and no claim ever
 * returns an event another claim holds under a live lease.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

const MAX = 3;
const SUBS = ['a', 'b'] as const;
const owner = { pid: process.pid, started: null };

type Step =
  | { kind: 'job' }
  | { kind: 'claim'; sub: number; max: number; leaseMs: number }
  | { kind: 'ack'; sub: number; pick: number }
  | { kind: 'requeue'; sub: number; pick: number }
  | { kind: 'stale'; sub: number; ms: number }
  | { kind: 'time'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ kind: 'job' }),
  fc.record({
    kind: fc.constant('claim' as const),
    sub: fc.integer({ min: 0, max: 1 }),
    max: fc.integer({ min: 1, max: 4 }),
    leaseMs: fc.constantFrom(1000, 5000),
  }),
  fc.record({ kind: fc.constant('ack' as const), sub: fc.integer({ min: 0, max: 1 }), pick: fc.nat() }),
  fc.record({ kind: fc.constant('requeue' as const), sub: fc.integer({ min: 0, max: 1 }), pick: fc.nat() }),
  fc.record({ kind: fc.constant('stale' as const), sub: fc.integer({ min: 0, max: 1 }), ms: fc.constantFrom(0, 2000) }),
  fc.record({ kind: fc.constant('time' as const), ms: fc.constantFrom(500, 1000, 3000) }),
);

describe('delivery states', () => {
  it('account for every event exactly once under random schedules', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 5, maxLength: 60 }), (steps) => {
        const home = mkdtempSync(join(tmpdir(), 'hs-events-prop-'));
        const store = SqliteStore.open(home);
        try {
          let now = 1_000_000;
          let jobs = 0;
          store.insertWorkspace({
            id: 'w',
            provider: 'fake',
            state: 'ready',
            profile: 'minimal',
            policy: { budget: { concurrency: 1 } } as never,
            environmentDigest: null,
            purpose: null,
            owner: null,
            createdAt: now,
            updatedAt: now,
            expiresAt: null,
            lifecyclePath: ['ready'],
          });
          for (const id of SUBS)
            store.events.subscribe({ id, scope: 'workspace', target: 'w', name: null, maxDeliveries: MAX, createdAt: now, webhookUrl: null });
          const acked = SUBS.map(() => new Set<string>());
          /** Claims handed out since the event's last revival (a revival resets the count). */
          const handed = SUBS.map(() => new Map<string, number>());
          const held = SUBS.map(() => new Map<string, number>()); // event → lease end, as the claimer believes
          for (const s of steps) {
            if (s.kind === 'job') {
              const id = `job-${++jobs}`;
              store.beginJob({ id, workspaceId: 'w', argv: ['x'], startedAt: now, owner });
              store.finishJob(id, { status: 'success', exitCode: 0, signal: null, limitHit: null, finishedAt: now, outputBytes: 0, storedBytes: 0, usage: {} });
            } else if (s.kind === 'claim') {
              for (const d of store.events.claim(SUBS[s.sub]!, s.max, now, s.leaseMs)) {
                const id = d.event.id;
                expect(acked[s.sub]!.has(id)).toBe(false);
                const lease = held[s.sub]!.get(id);
                expect(lease === undefined || lease <= now).toBe(true);
                handed[s.sub]!.set(id, (handed[s.sub]!.get(id) ?? 0) + 1);
                expect(handed[s.sub]!.get(id)).toBeLessThanOrEqual(MAX);
                expect(d.deliveries).toBe(handed[s.sub]!.get(id));
                held[s.sub]!.set(id, now + s.leaseMs);
              }
            } else if (s.kind === 'ack' || s.kind === 'requeue') {
              const ids = [...handed[s.sub]!.keys()];
              if (ids.length === 0) continue;
              const id = ids[s.pick % ids.length]!;
              if (s.kind === 'ack') {
                const [out] = store.events.ack(SUBS[s.sub]!, [id], now);
                expect(out!.outcome).toBe(acked[s.sub]!.has(id) ? 'duplicate' : 'acked');
                acked[s.sub]!.add(id);
                held[s.sub]!.delete(id);
              } else {
                const [out] = store.events.requeue(SUBS[s.sub]!, { eventIds: [id] }, now);
                if (out!.outcome === 'revived') handed[s.sub]!.set(id, 0);
                if (out!.outcome !== 'not_in_flight') held[s.sub]!.delete(id);
              }
            } else if (s.kind === 'stale') {
              for (const out of store.events.requeue(SUBS[s.sub]!, { staleMs: s.ms }, now)) held[s.sub]!.delete(out.eventId);
            } else {
              now += s.ms;
            }
          }
          for (const [i, sub] of SUBS.entries()) {
            const c = store.events.counts(sub);
            expect(c.pending + c.inFlight + c.acked + c.dead).toBe(jobs);
            expect(c.acked).toBe(acked[i]!.size);
          }
        } finally {
          store.close();
          rmSync(home, { recursive: true, force: true });
        }
      }),
      { seed: 15_2026, numRuns: 60 },
    );
  });
});
