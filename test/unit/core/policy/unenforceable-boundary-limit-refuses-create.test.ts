/**
 * Fail closed: when the provider cannot enforce a limit that guards the
 * isolation boundary, create refuses with policy_denied (exit 3) before
 * anything is provisioned — no workspace row, no backend object. A
 * non-boundary limit it cannot enforce is labelled measured, with a warning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('fail-closed create', () => {
  for (const limit of ['network', 'filesystem', 'memory', 'cpu', 'pids'] as const) {
    it(`refuses when ${limit} cannot be enforced, provisioning nothing`, async () => {
      t = makeTestEngine({ cannotEnforce: [limit] });
      await expect(t.engine.create({ workspaceId: 'closed' })).rejects.toMatchObject({ code: 'POLICY_DENIED', category: 'policy_denied' });
      const provider = await t.engine.provider('fake');
      expect(await provider.listWorkspaces()).toEqual([]);
      const listed = await t.engine.ls({ all: true });
      expect(listed.key_findings).toEqual([]);
    });
  }

  it('refuses network enabled on a provider that cannot give it safely', async () => {
    t = makeTestEngine();
    await expect(t.engine.create({ network: 'enabled' })).rejects.toMatchObject({ code: 'POLICY_DENIED' });
  });

  it('labels a measured storage limit and warns about it', async () => {
    t = makeTestEngine({ cannotEnforce: ['storage'] });
    const pkg = await t.engine.create();
    const storage = pkg.provenance.policy_summary.find((l) => l.name === 'storage')!;
    expect(storage.label).toBe('measured');
    expect(pkg.warnings.join('\n')).toMatch(/storage limit .* is measured, not enforced/);
    // The fake's other limits hold only in its simulation (#12 item 6); the engine's own are enforced.
    for (const l of pkg.provenance.policy_summary.filter((x) => x.name !== 'storage')) expect(l.label).toBe(l.by === 'engine' ? 'enforced' : 'simulated');
  });
});
