/**
 * The provider's live usage reaches the samples: a fake job holding 95% of
 * the memory budget ends the watch with budget_near for memory.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('watch of a job holding most of its memory budget', () => {
  it('ends with budget_near for memory, the figure in the sample', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w', budget: { memoryBytes: 100 * 1024 * 1024 } });
    const running = t.engine.run({ workspaceId: 'w', argv: ['alloc', String(95 * 1024 * 1024), '&&', 'block'] });
    await waitUntilRunning(t.engine, 'w');
    const pkg = await t.engine.watch({ handle: 'w', forSeconds: 30, everySeconds: 1 });
    const violation = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'violation');
    expect(violation).toMatchObject({ code: 'budget_near', limit: 'memory', used: 95 * 1024 * 1024 });
    expect(pkg.resource_usage.max_memory_bytes).toBe(95 * 1024 * 1024);
    await t.engine.stop({ workspaceId: 'w', apply: true });
    await running;
  });
});
