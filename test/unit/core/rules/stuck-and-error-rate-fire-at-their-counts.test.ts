/**
 * stuck:K fires when the same command failed the same way K times in a row;
 * error-rate:X/N when X of the last N jobs failed (#16). Each fires exactly
 * at its count — not one job earlier — as an attention item of the job's
 * result and a journalled decision; with :block the workspace then refuses
 * every job (policy_denied, naming the rule) until its rules are cleared,
 * and clearing restarts the count.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function guarded(rules: string[]): Promise<string> {
  t = makeTestEngine();
  return (await t.engine.create({ rules })).provenance.workspace_id!;
}

const fired = (pkg: { attention: Array<{ kind: string; text: string }> }) => pkg.attention.filter((a) => a.kind === 'rule').map((a) => a.text);

describe('stuck and error-rate rules', () => {
  it('stuck:3 fires on the third identical failure in a row, not before', async () => {
    const ws = await guarded(['stuck:3']);
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '2'] }))).toEqual([]);
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '2'] }))).toEqual([]);
    const third = fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '2'] }));
    expect(third).toHaveLength(1);
    expect(third[0]).toContain('failure (exit 2), 3 times in a row');
  });

  it('stuck counts only the same command failing the same way', async () => {
    const ws = await guarded(['stuck:2']);
    await t.engine.run({ workspaceId: ws, argv: ['fail', '2'] });
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '3'] }))).toEqual([]);
    await t.engine.run({ workspaceId: ws, argv: ['true'] });
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '3'] }))).toEqual([]);
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '3'] }))).toHaveLength(1);
  });

  it('error-rate:2/4 fires at the second failure among the last four jobs', async () => {
    const ws = await guarded(['error-rate:2/4']);
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '1'] }))).toEqual([]);
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['true'] }))).toEqual([]);
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['no-such-tool'] }))[0]).toContain('2 of the last 3 jobs failed');
  });

  it('with :block refuses every further job until the rules are cleared, then counts afresh', async () => {
    const ws = await guarded(['stuck:2:block']);
    await t.engine.run({ workspaceId: ws, argv: ['fail', '4'] });
    const tripping = await t.engine.run({ workspaceId: ws, argv: ['fail', '4'] });
    expect(fired(tripping)[0]).toContain('refuses jobs until its rules are cleared');
    await expect(t.engine.run({ workspaceId: ws, argv: ['true'] })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('rule stuck:2:block tripped') as unknown,
    });
    const cleared = await t.engine.rules({ workspaceId: ws, action: 'clear' });
    expect(cleared.outcome_summary).toContain('takes jobs again');
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['fail', '4'] }))).toEqual([]);
    const journal = (await t.engine.rules({ workspaceId: ws })).evidence[0]!.excerpt;
    expect(journal).toMatch(/tripped stuck:2:block[\s\S]*blocked stuck:2:block[\s\S]*cleared \*/);
  });

  it('are managed by the rules verb: add, list, remove', async () => {
    const ws = await guarded([]);
    await t.engine.rules({ workspaceId: ws, action: 'add', rule: ' error-rate:1/1 ' });
    expect((await t.engine.rules({ workspaceId: ws })).key_findings).toEqual(['rule error-rate:1/1']);
    expect(fired(await t.engine.run({ workspaceId: ws, argv: ['false'] }))).toHaveLength(1);
    await t.engine.rules({ workspaceId: ws, action: 'remove', rule: 'error-rate:1/1' });
    expect((await t.engine.rules({ workspaceId: ws })).key_findings).toEqual(['no rules']);
    await expect(t.engine.rules({ workspaceId: ws, action: 'remove', rule: 'stuck:2' })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});
