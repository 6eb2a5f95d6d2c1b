/**
 * A new --all (or --workspace) subscription starts from now: events recorded
 * before it are not replayed, only later ones arrive, in sequence order. A
 * name filter keeps only events of that name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { eventsOf, subscriptionIdOf } from '../../../helpers/events.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('a new wildcard subscription', () => {
  it('gets only events after it, each once, in order', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'a' });
    await engine.create({ workspaceId: 'b' });
    await engine.run({ workspaceId: 'a', argv: ['echo', 'before'] });
    const all = subscriptionIdOf(await engine.subscribeEvents({ all: true }));
    const onlyB = subscriptionIdOf(await engine.subscribeEvents({ workspaceId: 'b' }));
    const failures = subscriptionIdOf(await engine.subscribeEvents({ all: true, event: 'job.failed' }));
    expect(eventsOf(await engine.claimEvents({ subscriptionId: all }))).toEqual([]);
    const later = [
      (await engine.run({ workspaceId: 'b', argv: ['echo', 'x'] })).provenance.job_id,
      (await engine.run({ workspaceId: 'a', argv: ['fail', '2'] })).provenance.job_id,
      (await engine.run({ workspaceId: 'b', argv: ['fail', '5'] })).provenance.job_id,
    ];
    const got = eventsOf(await engine.claimEvents({ subscriptionId: all, max: 100 }));
    expect(got.map((e) => e.job_id)).toEqual(later);
    expect(got.map((e) => e.seq)).toEqual([...got.map((e) => e.seq)].sort((x, y) => x - y));
    expect(eventsOf(await engine.claimEvents({ subscriptionId: onlyB, max: 100 })).map((e) => e.job_id)).toEqual([later[0], later[2]]);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: failures, max: 100 })).map((e) => e.job_id)).toEqual([later[1], later[2]]);
    expect(eventsOf(await engine.claimEvents({ subscriptionId: all }))).toEqual([]);
  });
});
