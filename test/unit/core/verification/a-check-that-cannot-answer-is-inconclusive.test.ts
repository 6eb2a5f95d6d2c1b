/**
 * A verifier fault is not a failure (#16, Prompt Runner's taxonomy): a check
 * whose command is not found (127) or not executable (126), one that runs
 * past the checks' time allowance (the workspace's wall clock), and a
 * pattern not found in output that was only partly kept all leave the job
 * `inconclusive` — a status of its own with exit 9 — never success and
 * never failure. A definite failure of another check outranks a fault.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES, categoryOfStatus } from '../../../../src/core/status.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function workspace(budget: Record<string, number> = {}): Promise<string> {
  t = makeTestEngine();
  return (await t.engine.create({ budget })).provenance.workspace_id!;
}

describe('a check that cannot reach a verdict', () => {
  it('makes the job inconclusive (exit 9) when its command is not found', async () => {
    const ws = await workspace();
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['echo', 'ok'], verify: [['no-such-checker']] });
    expect(pkg.status).toBe('inconclusive');
    expect(EXIT_CODES[categoryOfStatus(pkg.status)]).toBe(9);
    expect(pkg.provenance.verification!.checks[0]).toMatchObject({ outcome: 'fault', exit_code: 127 });
    expect(pkg.outcome_summary).toContain('could not reach a verdict');
    expect(pkg.evidence[0]!.label).toContain('fault');
  });

  it('makes the job inconclusive when its command is not executable', async () => {
    const ws = await workspace();
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['write', 'check.sh', 'exit 0'], verify: [['check.sh']] });
    expect(pkg.status).toBe('inconclusive');
    expect(pkg.provenance.verification!.checks[0]).toMatchObject({ outcome: 'fault', exit_code: 126 });
  });

  it('makes the job inconclusive when a check runs past the time allowance, and a later check finds none left', async () => {
    const ws = await workspace({ wallClockSeconds: 2 });
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['true'], verify: [['sleep', '30'], ['true']] });
    expect(pkg.status).toBe('inconclusive');
    const [slow, next] = pkg.provenance.verification!.checks;
    expect(slow!.outcome).toBe('fault');
    expect(slow!.detail).toContain("ran past the checks' time allowance (2 s");
    expect(next!.outcome).toBe('fault');
    expect(next!.detail).toContain('used up');
  });

  it('makes the job inconclusive when a pattern is missing from output that was only partly kept', async () => {
    const ws = await workspace({ outputBytes: 4096 });
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['flood', '100000'], expectOutput: ['^answer='] });
    expect(pkg.status).toBe('inconclusive');
    expect(pkg.provenance.verification!.checks[0]!.detail).toContain('never searched');
  });

  it('still reads failure when another check definitely failed', async () => {
    const ws = await workspace();
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['true'], verify: [['no-such-checker'], ['false']] });
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.verification!.outcome).toBe('failed');
  });
});
