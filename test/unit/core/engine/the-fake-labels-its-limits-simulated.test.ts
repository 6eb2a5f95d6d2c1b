/**
 * The fake provider isolates nothing, so none of its limits is labelled
 * enforced: every limit it applies (network, filesystem, memory, cpu, pids,
 * storage) is `simulated` — a third label beside enforced and measured —
 * and only the engine's own limits (wall clock, output, concurrency) read
 * enforced. Simulation is not a refusal: create on the fake still works. The
 * peak memory a job reports says whose peak it is (here the job's own), and
 * the result schema served over MCP accepts the label.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { renderJson } from '../../../../src/core/result/render-json.js';
import { ResultPackageJsonSchema } from '../../../../src/core/result/result-schema.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const PROVIDER_LIMITS = ['network', 'filesystem', 'memory', 'cpu', 'pids', 'storage'];

describe('the fake provider', () => {
  it('labels every limit it applies simulated, never enforced, and still creates', async () => {
    t = makeTestEngine();
    const created = await t.engine.create({ workspaceId: 'sim' });
    expect(created.status).toBe('success');
    for (const limit of created.provenance.policy_summary) {
      if (PROVIDER_LIMITS.includes(limit.name)) expect(limit, limit.name).toMatchObject({ label: 'simulated', by: 'provider' });
      else expect(limit, limit.name).toMatchObject({ label: 'enforced', by: 'engine' });
    }
  });

  it('labels them simulated in a run result too, and says the peak memory is the job’s', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'sim' });
    const ran = await t.engine.run({ workspaceId: 'sim', argv: ['alloc', '1000000'] });
    expect(ran.status).toBe('success');
    expect(ran.provenance.policy_summary.filter((l) => l.label === 'enforced').map((l) => l.name)).toEqual(['wall_clock', 'output_bytes', 'concurrency']);
    expect(ran.resource_usage.max_memory_bytes).not.toBeNull();
    expect(ran.resource_usage.max_memory_scope).toBe('job');
  });

  it('produces results the served result schema accepts', async () => {
    t = makeTestEngine();
    const created = await t.engine.create({ workspaceId: 'sim' });
    expect(ResultPackageJsonSchema.safeParse(JSON.parse(renderJson(created))).success).toBe(true);
  });
});
