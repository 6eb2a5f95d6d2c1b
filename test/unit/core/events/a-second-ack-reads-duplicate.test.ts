/**
 * Acknowledging is idempotent: a second ack of an event reads `duplicate`
 * and succeeds. An id the subscription never received refuses the whole
 * call, acknowledging nothing (EVENT_NOT_FOUND, a user error).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { eventsOf, subscriptionIdOf } from '../../../helpers/events.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('acknowledging', () => {
  it('reads duplicate the second time and refuses an unknown id without acking the rest', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    const sub = subscriptionIdOf(await engine.subscribeEvents({ workspaceId: 'w' }));
    await engine.run({ workspaceId: 'w', argv: ['echo', '1'] });
    await engine.run({ workspaceId: 'w', argv: ['echo', '2'] });
    const [one, two] = eventsOf(await engine.claimEvents({ subscriptionId: sub }));
    await expect(engine.ackEvents({ subscriptionId: sub, eventIds: [two!.id, 'ev-nope'] })).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
    const first = await engine.ackEvents({ subscriptionId: sub, eventIds: [one!.id] });
    expect(eventsOf(first).map((e) => e.outcome)).toEqual(['acked']);
    const second = await engine.ackEvents({ subscriptionId: sub, eventIds: [one!.id, two!.id] });
    expect(second.status).toBe('success');
    expect(eventsOf(second).map((e) => [e.id, e.outcome])).toEqual([
      [one!.id, 'duplicate'],
      [two!.id, 'acked'],
    ]);
    expect(second.outcome_summary).toContain('1 duplicate');
  });

  it('refuses an unknown subscription', async () => {
    t = makeTestEngine();
    await expect(t.engine.ackEvents({ subscriptionId: 'sub-none', eventIds: ['ev-x'] })).rejects.toMatchObject({ code: 'SUBSCRIPTION_NOT_FOUND' });
  });
});
