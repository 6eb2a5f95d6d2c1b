/**
 * prune removes what is settled and old — acknowledged and dead deliveries,
 * then events no subscription still holds — and never an event some
 * subscription has pending or in flight. Sequence numbers are never reused.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { eventsOf, subscriptionIdOf } from '../../../helpers/events.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('prune', () => {
  it('removes old settled events and keeps the undelivered ones', async () => {
    t = makeTestEngine();
    const { engine, clock } = t;
    await engine.create({ workspaceId: 'w' });
    const fast = subscriptionIdOf(await engine.subscribeEvents({ all: true }));
    const slow = subscriptionIdOf(await engine.subscribeEvents({ all: true }));
    const a = (await engine.run({ workspaceId: 'w', argv: ['echo', 'a'] })).provenance.job_id!;
    const b = (await engine.run({ workspaceId: 'w', argv: ['echo', 'b'] })).provenance.job_id!;
    const both = eventsOf(await engine.claimEvents({ subscriptionId: fast }));
    await engine.ackEvents({ subscriptionId: fast, eventIds: both.map((e) => e.id) });
    const [forSlow] = eventsOf(await engine.claimEvents({ subscriptionId: slow, max: 1 }));
    await engine.ackEvents({ subscriptionId: slow, eventIds: [forSlow!.id] });
    clock.advance(3 * 86_400_000);
    expect((await engine.pruneEvents({ olderThanSeconds: 7 * 86_400 })).outcome_summary).toMatch(/^pruned 0 event/);
    clock.advance(5 * 86_400_000);
    const pruned = await engine.pruneEvents({ olderThanSeconds: 7 * 86_400 });
    expect(pruned.outcome_summary).toMatch(/^pruned 1 event\(s\) and 3 settled/);
    const store = SqliteStore.open(t.home);
    try {
      expect(store.events.eventsOfJob(a)).toEqual([]);
      expect(store.events.eventsOfJob(b)).toHaveLength(1);
      const lastSeq = store.events.lastSeq();
      await engine.run({ workspaceId: 'w', argv: ['echo', 'c'] });
      expect(store.events.lastSeq()).toBe(lastSeq + 1);
    } finally {
      store.close();
    }
    expect(eventsOf(await engine.claimEvents({ subscriptionId: slow })).map((e) => e.job_id)).toEqual([b, expect.any(String)]);
  });
});
