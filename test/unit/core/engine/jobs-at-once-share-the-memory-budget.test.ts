/**
 * Jobs running at once share the workspace's memory budget, as they share its
 * cgroup (#12 item 8): two jobs each holding 60% of it cannot both fit, the
 * one the "kernel" kills for memory reads resource_exhausted, and its peak is
 * reported as the workspace's (max_memory_scope: workspace), not its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { waitForJobStatus } from '../../../helpers/wait-for-job.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const MIB = 1024 * 1024;

describe('two jobs at once', () => {
  it('share one memory budget: the second to take 60% of it is killed for memory', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'pair', budget: { concurrency: 2, memoryBytes: 100 * MIB } });
    const holder = t.engine.run({ workspaceId: 'pair', jobId: 'job-holds', argv: ['alloc', String(60 * MIB), '&&', 'block'] });
    await waitForJobStatus(t.engine, 'job-holds', 'running');
    await new Promise((r) => setTimeout(r, 200));

    const second = await t.engine.run({ workspaceId: 'pair', jobId: 'job-second', argv: ['alloc', String(60 * MIB)] });
    expect(second.status).toBe('resource_exhausted');
    expect(second.resource_usage.max_memory_scope).toBe('workspace');

    await t.engine.stop({ workspaceId: 'pair', apply: true, graceSeconds: 0 });
    expect((await holder).status).toBe('cancelled');
    // Alone, the same allocation fits: the budget was shared, not smaller.
    expect((await t.engine.run({ workspaceId: 'pair', argv: ['alloc', String(60 * MIB)] })).status).toBe('success');
  });
});
