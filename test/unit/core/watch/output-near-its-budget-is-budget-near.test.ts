/**
 * A running job whose kept output reaches 90% of the output budget ends the
 * watch with budget_near, naming the limit, what is used and the budget.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('watch of a job whose output nears its budget', () => {
  it('ends with budget_near for output', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w', budget: { outputBytes: 10_000 } });
    const running = t.engine.run({ workspaceId: 'w', argv: ['flood', '9500', '&&', 'block'] });
    await waitUntilRunning(t.engine, 'w');
    const pkg = await t.engine.watch({ handle: 'w', forSeconds: 30, everySeconds: 1 });
    expect(pkg.status).toBe('failure');
    const violation = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'violation');
    expect(violation).toMatchObject({ code: 'budget_near', limit: 'output', budget: 10_000 });
    expect((violation as { used: number }).used).toBeGreaterThanOrEqual(9000);
    await t.engine.stop({ workspaceId: 'w', apply: true });
    await running;
  });
});
