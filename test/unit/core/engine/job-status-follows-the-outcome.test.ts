/**
 * A job ends with exactly one status, and the exit code follows from it:
 * success 0, a failing command 6 (126/127 included), wall clock 4, memory 8
 * (only from the kernel's counter). Output past the budget is truncated, never
 * a status of its own (output-past-the-budget-is-truncated-not-killed.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES, categoryOfStatus } from '../../../../src/core/status.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function runIn(argv: string[], budget: Record<string, number> = {}) {
  t = makeTestEngine();
  const created = await t.engine.create({ budget });
  const workspaceId = created.provenance.workspace_id!;
  return t.engine.run({ workspaceId, argv });
}

const exitOf = (status: Parameters<typeof categoryOfStatus>[0]) => EXIT_CODES[categoryOfStatus(status)];

describe('job status', () => {
  it('reports success with exit 0 and the output as evidence', async () => {
    const pkg = await runIn(['echo', 'pi=3.1415926536']);
    expect(pkg.status).toBe('success');
    expect(exitOf(pkg.status)).toBe(0);
    expect(pkg.evidence[0]?.excerpt).toContain('pi=3.1415926536');
    expect(pkg.provenance.exit_code).toBe(0);
  });

  it('reports a failing command as computation_failed (exit 6) with its exit status', async () => {
    const pkg = await runIn(['fail', '3']);
    expect(pkg.status).toBe('failure');
    expect(exitOf(pkg.status)).toBe(6);
    expect(pkg.provenance.exit_code).toBe(3);
  });

  it('reports a missing command as 127 and exit 6, never 7', async () => {
    const pkg = await runIn(['no-such-tool']);
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.exit_code).toBe(127);
    expect(pkg.outcome_summary).toContain('not found');
  });

  it('reports a wall-clock overrun as timeout (exit 4) with no exit status', async () => {
    const pkg = await runIn(['sleep', '30'], { wallClockSeconds: 1 });
    expect(pkg.status).toBe('timeout');
    expect(exitOf(pkg.status)).toBe(4);
    expect(pkg.provenance.exit_code).toBeNull();
    expect(pkg.resource_usage.wall_time_seconds).toBe(1);
  });

  it('reports a kernel OOM kill as resource_exhausted (exit 8)', async () => {
    const pkg = await runIn(['alloc', String(2 * 1024 ** 3)], { memoryBytes: 64 * 1024 * 1024 });
    expect(pkg.status).toBe('resource_exhausted');
    expect(exitOf(pkg.status)).toBe(8);
  });

  it('does not call exit 137 an OOM when the kernel did not say so', async () => {
    const pkg = await runIn(['exit', '137']);
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.exit_code).toBe(137);
  });

  it('refuses an empty command as a user error', async () => {
    t = makeTestEngine();
    const created = await t.engine.create();
    await expect(t.engine.run({ workspaceId: created.provenance.workspace_id!, argv: [] })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});
