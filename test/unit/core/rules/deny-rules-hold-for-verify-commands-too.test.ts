/**
 * A run's verify commands (#16) run in the same workspace under the same
 * policy as the job, so a deny-command rule holds for them exactly as for
 * the job's own argv: a run whose verify command matches is refused with
 * POLICY_DENIED before anything is recorded or started, naming which
 * command matched. A red team bypassed `deny-command:rm` with
 * `run --verify 'rm …' WS true` before this.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('deny-command rules and verify commands', () => {
  it('refuse a run whose verify command matches, before the job runs, naming the verify command', async () => {
    t = makeTestEngine();
    const ws = (await t.engine.create({ rules: ['deny-command:rm'] })).provenance.workspace_id!;
    await t.engine.run({ workspaceId: ws, argv: ['write', 'important.txt', 'keep me'] });
    await expect(t.engine.run({ workspaceId: ws, argv: ['echo', 'hi'], verify: [['rm', 'important.txt']] })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('verify command 1 matches rule deny-command:rm') as unknown,
    });
    const after = await t.engine.run({ workspaceId: ws, argv: ['cat', 'important.txt'] });
    expect(after.evidence.map((e) => e.excerpt).join('\n')).toContain('keep me');
  });

  it('let a run through whose verify commands match no rule', async () => {
    t = makeTestEngine();
    const ws = (await t.engine.create({ rules: ['deny-command:rm'] })).provenance.workspace_id!;
    const run = await t.engine.run({ workspaceId: ws, argv: ['echo', 'hi'], verify: [['echo', 'ok']] });
    expect(run.status).toBe('success');
  });
});
