/**
 * A running job at 90% of its wall clock ends the watch with budget_near for
 * wall_clock, before the engine's own timer ends the job (virtual clock:
 * the sample at 9 s of a 10 s budget).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('watch of a job near its wall clock', () => {
  it('ends with budget_near for wall_clock at 90%', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w', budget: { wallClockSeconds: 10 } });
    const running = t.engine.run({ workspaceId: 'w', jobId: 'long', argv: ['block'] });
    await waitUntilRunning(t.engine, 'w');
    const pkg = await t.engine.watch({ handle: 'long', forSeconds: 60, everySeconds: 1 });
    const violation = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'violation');
    expect(violation).toMatchObject({ code: 'budget_near', limit: 'wall_clock', budget: 10 });
    expect((violation as { used: number }).used).toBeGreaterThanOrEqual(9);
    expect((violation as { used: number }).used).toBeLessThan(10);
    await t.engine.stop({ workspaceId: 'w', apply: true });
    await running;
  });
});
