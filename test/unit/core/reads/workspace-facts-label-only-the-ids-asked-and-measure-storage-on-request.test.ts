/**
 * engine.workspaceFacts (#21) gives, for the ids asked and in their order,
 * each workspace's policy labels exactly as inspect shows them and whether
 * it can take secrets at egress; storage is measured only when asked. An
 * unknown id is left out; more ids than a page of the list is refused.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
beforeEach(() => {
  t = makeTestEngine();
});
afterEach(() => t.cleanup());

describe('workspace facts', () => {
  it('labels each asked workspace as inspect does, storage only on request, skipping unknown ids', async () => {
    const plain = (await t.engine.create({})).provenance.workspace_id!;
    await t.engine.run({ workspaceId: plain, argv: ['write', 'seven.txt', 'seven b'] });
    const allowed = (await t.engine.create({ network: 'allow=api.example.com' })).provenance.workspace_id!;

    const facts = await t.engine.workspaceFacts({ ids: [allowed, 'ws-unknown', plain] });
    expect(facts.map((f) => f.id)).toEqual([allowed, plain]);
    expect(facts[0]!.policy).toEqual((await t.engine.inspect({ handle: allowed })).provenance.policy_summary);
    expect(facts[1]!.policy).toEqual((await t.engine.inspect({ handle: plain })).provenance.policy_summary);
    expect(facts.map((f) => f.secrets_at_egress)).toEqual([true, false]);
    expect(facts.every((f) => !('storage_bytes' in f))).toBe(true);

    const measured = await t.engine.workspaceFacts({ ids: [plain, allowed], storage: true });
    expect(measured.map((f) => f.storage_bytes)).toEqual([7, 0]);
  });

  it('refuses more than 500 ids at once', async () => {
    const ids = Array.from({ length: 501 }, (_, i) => `ws-${i}`);
    await expect(t.engine.workspaceFacts({ ids })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});
