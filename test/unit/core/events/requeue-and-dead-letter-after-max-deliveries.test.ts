/**
 * Claimed events that are not acknowledged come back: by an explicit
 * requeue, by requeue --stale, or when their lease ends. Each claim counts a
 * delivery; an event claimed max-deliveries times that comes back once more
 * goes to dead instead, and doctor reports it with the call that revives it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { eventsOf, subscriptionIdOf } from '../../../helpers/events.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

async function setUp(maxDeliveries: number) {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'w' });
  const sub = subscriptionIdOf(await engine.subscribeEvents({ workspaceId: 'w', maxDeliveries }));
  const jobId = (await engine.run({ workspaceId: 'w', argv: ['echo', 'x'] })).provenance.job_id!;
  return { engine, sub, jobId, clock: t.clock };
}

describe('requeue and dead-letter', () => {
  it('puts a named event back, then one claimed long ago with stale, each counting a delivery', async () => {
    const { engine, sub } = await setUp(5);
    const [event] = eventsOf(await engine.claimEvents({ subscriptionId: sub }));
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))).toEqual([]);
    const named = await engine.requeueEvents({ subscriptionId: sub, eventIds: [event!.id] });
    expect(eventsOf(named).map((e) => e.outcome)).toEqual(['requeued']);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))[0]).toMatchObject({ id: event!.id, deliveries: 2 });
    t!.clock.advance(10_000);
    expect(eventsOf(await engine.requeueEvents({ subscriptionId: sub, staleSeconds: 60 }))).toEqual([]);
    t!.clock.advance(60_000);
    expect(eventsOf(await engine.requeueEvents({ subscriptionId: sub, staleSeconds: 60 })).map((e) => e.outcome)).toEqual(['requeued']);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))[0]).toMatchObject({ id: event!.id, deliveries: 3 });
    await expect(engine.requeueEvents({ subscriptionId: sub })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });

  it('gives an event whose lease ended to the next claim', async () => {
    const { engine, sub, clock } = await setUp(5);
    const [event] = eventsOf(await engine.claimEvents({ subscriptionId: sub, leaseSeconds: 30 }));
    clock.advance(29_000);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))).toEqual([]);
    clock.advance(1_000);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))[0]).toMatchObject({ id: event!.id, deliveries: 2 });
  });

  it('sends an event to dead after max deliveries, and doctor reports it until it is revived', async () => {
    const { engine, sub, jobId } = await setUp(3);
    let id = '';
    for (let n = 1; n <= 3; n++) {
      const [event] = eventsOf(await engine.claimEvents({ subscriptionId: sub }));
      expect(event).toMatchObject({ deliveries: n });
      id = event!.id;
      const back = eventsOf(await engine.requeueEvents({ subscriptionId: sub, eventIds: [id] }));
      expect(back[0]!.outcome).toBe(n < 3 ? 'requeued' : 'dead');
    }
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))).toEqual([]);
    const doctor = await engine.doctor({ provider: 'fake' });
    const dead = doctor.attention.filter((a) => a.kind === 'dead-event');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ job_id: jobId, action: { verb: 'events-requeue', args: { subscriptionId: sub, eventIds: id } } });
    expect(dead[0]!.text).toContain('claimed 3 time(s)');
    expect(doctor.key_findings).toContain('events: 1 subscription(s); 0 pending, 0 in flight, 0 acked, 1 dead');
    expect(eventsOf(await engine.requeueEvents({ subscriptionId: sub, eventIds: [id] }))[0]!.outcome).toBe('revived');
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))[0]).toMatchObject({ id, deliveries: 1 });
    expect((await engine.doctor({ provider: 'fake' })).attention.filter((a) => a.kind === 'dead-event')).toEqual([]);
  });

  it('sends an event whose lease ended after its last delivery to dead, not to a claimer', async () => {
    const { engine, sub, clock } = await setUp(1);
    await engine.claimEvents({ subscriptionId: sub, leaseSeconds: 1 });
    clock.advance(1_000);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))).toEqual([]);
    expect((await engine.doctor({ provider: 'fake' })).attention.filter((a) => a.kind === 'dead-event')).toHaveLength(1);
  });
});
