/**
 * A subscription to a job that already ended replays its terminal event,
 * once: the first claim gets it, and once acknowledged it never comes back,
 * however often the consumer claims or subscribes again by the same name.
 * A subscription made before the job ran gets the event when it ends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { eventsOf, subscriptionIdOf } from '../../../helpers/events.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('a late subscription to one job', () => {
  it('replays the ended job’s event once, never after its ack', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    const jobId = (await engine.run({ workspaceId: 'w', argv: ['fail', '4'] })).provenance.job_id!;
    const sub = subscriptionIdOf(await engine.subscribeEvents({ jobId, name: 'late' }));
    const first = eventsOf(await engine.claimEvents({ subscriptionId: sub }));
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ job_id: jobId, name: 'job.failed', exit_code: 4, deliveries: 1 });
    await engine.ackEvents({ subscriptionId: sub, eventIds: [first[0]!.id] });
    const again = await engine.subscribeEvents({ jobId, name: 'late' });
    expect(again.outcome_summary).toMatch(/^already subscribed/);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))).toEqual([]);
  });

  it('gets the event when a job subscribed to before it ran ends', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    const sub = subscriptionIdOf(await engine.subscribeEvents({ jobId: 'job-later' }));
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub }))).toEqual([]);
    await engine.run({ workspaceId: 'w', argv: ['echo', 'x'], jobId: 'job-later' });
    await engine.run({ workspaceId: 'w', argv: ['echo', 'other'] });
    expect(eventsOf(await engine.claimEvents({ subscriptionId: sub })).map((e) => [e.job_id, e.name])).toEqual([['job-later', 'job.succeeded']]);
  });

  it('refuses the same name with another filter', async () => {
    t = makeTestEngine();
    await t.engine.subscribeEvents({ all: true, name: 'mine' });
    await expect(t.engine.subscribeEvents({ workspaceId: 'w', name: 'mine' })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});
