/**
 * The library's iterator over a subscription acknowledges an event when the
 * consumer moves on to the next (or calls ack()), and when the consumer
 * throws or breaks it puts the event it was handling and the rest of its
 * claimed batch back to pending at once: the next consumer gets them all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { eventsOf, subscriptionIdOf } from '../../../helpers/events.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('the subscription iterator', () => {
  it('acks what the consumer moved past and puts back what it threw on', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    const sub = subscriptionIdOf(await engine.subscribeEvents({ workspaceId: 'w' }));
    const jobs: string[] = [];
    for (const word of ['a', 'b', 'c', 'd']) jobs.push((await engine.run({ workspaceId: 'w', argv: ['echo', word] })).provenance.job_id!);

    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const item of engine.subscription({ subscriptionId: sub, batch: 10 })) {
          seen.push(item.event.jobId);
          if (seen.length === 2) throw new Error('consumer failed on the second event');
        }
      })(),
    ).rejects.toThrow('consumer failed');
    expect(seen).toEqual(jobs.slice(0, 2));
    // The first was acknowledged when the consumer moved on; the second and the unseen rest are pending again.
    const left = eventsOf(await engine.claimEvents({ subscriptionId: sub, max: 10 }));
    expect(left.map((e) => e.job_id)).toEqual(jobs.slice(1));
    expect(left.map((e) => e.deliveries)).toEqual([2, 2, 2]);
    await engine.requeueEvents({ subscriptionId: sub, eventIds: left.map((e) => e.id) });

    // An explicit ack before a break keeps that event from coming back.
    for await (const item of engine.subscription({ subscriptionId: sub })) {
      item.ack();
      break;
    }
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub, max: 10 })).map((e) => e.job_id)).toEqual(jobs.slice(2));
  });
});
