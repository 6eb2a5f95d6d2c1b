/**
 * stop --apply on the fake ends a job that is sleeping, as it ends one that
 * blocks: both results read cancelled. Before, the fake's `sleep` ignored the
 * stop, the provider gave up after 5 s and stop reported
 * infrastructure_failure while the job slept on (#12 item 22).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('stop on the fake', () => {
  it('cancels a sleeping job at once, not as an infrastructure failure', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'sleepy' });
    const running = t.engine.run({ workspaceId: 'sleepy', argv: ['sleep', '30'] });
    await waitUntilRunning(t.engine, 'sleepy');
    const started = Date.now();
    const stop = await t.engine.stop({ workspaceId: 'sleepy', apply: true });
    expect(stop.status).toBe('cancelled');
    expect((await running).status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
