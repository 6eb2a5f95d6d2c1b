/**
 * A destroy records the workspace destroyed even when its provider answered
 * that it could not verify the removal (a docker engine that answers an error
 * other than "gone" or "in use"): the container or folder then lived on, and
 * nothing ever named it again, since doctor asked no provider what it holds.
 * doctor now compares each ready provider's workspaces with the store: one
 * recorded destroyed is a safe repair (its destroy already passed the artifact
 * guards), one with no record at all is a judgement call, never removed.
 */
import { afterEach, expect, it } from 'vitest';
import type { EngineWithProviders } from '../../../../src/core/engine.js';
import type { Provider, RemovalDisposition } from '../../../../src/core/provider.js';
import type { EngineContext } from '../../../../src/core/context.js';
import { jobUserOfSlot } from '../../../../src/core/job-identity.js';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { applyRepairs } from '../../../../src/core/repair/apply-repairs.js';
import type { Repair } from '../../../../src/core/repair/plan-repairs.js';
import { SqliteStore, type WorkspaceRecord } from '../../../../src/core/store/sqlite-store.js';
import { currentOwner } from '../../../../src/core/store/owner.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const fake = async (): Promise<Provider> => (t.engine as EngineWithProviders).provider('fake');

/** The provider's next removal answers "could not verify" and removes nothing, as an engine erring on the removal does. */
function failNextRemoval(provider: Provider): void {
  const remove = provider.remove.bind(provider);
  provider.remove = async (id: string): Promise<RemovalDisposition> => {
    provider.remove = remove;
    return { removed: [], retained: [], unverified: ['runtime', 'storage'] };
  };
}

it('names a destroyed workspace its provider still holds, and a repair with apply removes it there', async () => {
  t = makeTestEngine();
  const provider = await fake();
  await t.engine.create({ workspaceId: 'kept' });
  failNextRemoval(provider);
  const destroyed = await t.engine.destroy({ workspaceId: 'kept' });
  expect(destroyed.warnings.join('\n')).toContain('could not verify the removal of: runtime, storage');
  expect(await provider.listWorkspaces()).toContain('kept');

  const report = await t.engine.doctor({});
  expect(report.attention.map((a) => a.text).join('\n')).toContain(
    'leftover: the fake provider still holds workspace kept, which is recorded destroyed (its removal there was not verified)',
  );

  const plan = await t.engine.doctor({ repair: true });
  expect(plan.key_findings.join('\n')).toContain('would remove workspace kept at the fake provider');

  const applied = await t.engine.doctor({ repair: true, apply: true, verify: true });
  expect(applied.status, applied.warnings.join('\n')).toBe('success');
  expect(applied.key_findings.join('\n')).toContain('repaired: removed workspace kept at the fake provider (removed: runtime, storage)');
  expect(applied.key_findings.join('\n')).toContain('verify: nothing safe is left to repair');
  expect(await provider.listWorkspaces()).not.toContain('kept');
  expect((await t.engine.doctor({})).outcome_summary).toBe('doctor found nothing wrong; it changed nothing');
});

it('reports a workspace the store has no record of as a judgement call and never removes it', async () => {
  t = makeTestEngine();
  const provider = await fake();
  // Made at the provider alone, as a store replaced under a home would leave one.
  await provider.create({ workspaceId: 'stranger', policy: defaultPolicy(), profile: 'default', jobUser: jobUserOfSlot(1) });
  const applied = await t.engine.doctor({ repair: true, apply: true });
  const said = applied.attention.map((a) => a.text).join('\n');
  expect(said).toContain('judgement call, skipped: remove workspace stranger at the fake provider');
  expect(said).toContain("of which this home's store has no record");
  expect(await provider.listWorkspaces()).toContain('stranger');
});

it('refuses a create of a destroyed id its provider still holds, before recording anything, and names the repair', async () => {
  t = makeTestEngine();
  const provider = await fake();
  await t.engine.create({ workspaceId: 'again' });
  failNextRemoval(provider);
  await t.engine.destroy({ workspaceId: 'again' });
  // Made again, the provider refused it only after the new record replaced the destroyed one: the old workspace then
  // hid behind a failed one, where doctor no longer named it.
  await expect(t.engine.create({ workspaceId: 'again' })).rejects.toMatchObject({
    code: 'WORKSPACE_EXISTS',
    message: 'workspace again was destroyed, but the fake provider still holds it (its removal was not verified, or was abandoned); nothing was created',
    action: { verb: 'doctor', args: { repair: true, apply: true } },
  });
  const report = await t.engine.doctor({});
  expect(report.attention.map((a) => a.text).join('\n')).toContain('the fake provider still holds workspace again, which is recorded destroyed');
  await t.engine.doctor({ repair: true, apply: true });
  expect((await t.engine.create({ workspaceId: 'again' })).status).toBe('success');
});

/** What an insert of a new record of `id` carries (the create verb's own, less its policy). */
const recordOf = (id: string) => ({
  id,
  provider: 'fake',
  state: 'provisioning' as const,
  profile: 'default',
  policy: defaultPolicy(),
  environmentDigest: null,
  purpose: null,
  owner: null,
  createdAt: 0,
  updatedAt: 0,
  expiresAt: null,
  lifecyclePath: ['requested', 'provisioning'] as WorkspaceRecord['lifecyclePath'],
});

it('takes its look at the record and its journal in one step, which a create of the id is refused behind, and keeps a record made live before it', async () => {
  t = makeTestEngine();
  const provider = await fake();
  await t.engine.create({ workspaceId: 'raced' });
  failNextRemoval(provider);
  await t.engine.destroy({ workspaceId: 'raced' });
  const store = SqliteStore.open(t.home);
  try {
    const lease = { workspaceId: 'raced', provider: 'fake', owner: currentOwner(), createdAt: 0, traceId: null };
    // While doctor's removal holds the id, a create's insert is refused busy, naming it.
    const held = store.leaseDestroyedRecord(lease);
    expect(held).toHaveProperty('intentId');
    expect(() => store.insertWorkspace(recordOf('raced'))).toThrow(
      "workspace raced is busy: doctor's removal of what a provider kept of an earlier workspace of this id is in progress",
    );
    store.settleIntent((held as { intentId: number }).intentId, 'done', 0);
    // A record made live before the look is seen by it, and the repair is not made.
    store.insertWorkspace(recordOf('raced'));
    expect(store.leaseDestroyedRecord(lease)).toEqual({ state: 'provisioning' });
    const repair: Repair = {
      kind: 'remove-workspace',
      target: 'workspace raced at the fake provider',
      workspaceId: 'raced',
      safe: true,
      reason: 'planned while it was recorded destroyed',
      action: { type: 'remove-workspace', provider: 'fake', workspaceId: 'raced' },
    };
    const ctx = { store: () => store, provider: fake, clock: t.clock, traceId: 'trace-test' } as unknown as EngineContext;
    const [applied] = await applyRepairs(ctx, [repair]);
    expect(applied?.detail).toBe('kept workspace raced at the fake provider: it is recorded provisioning now');
    expect(await provider.listWorkspaces()).toContain('raced');
  } finally {
    store.close();
  }
});

it('does not ask a provider that is not ready what it holds', async () => {
  t = makeTestEngine();
  const provider = await fake();
  const probe = await provider.probe();
  provider.probe = async () => ({ ...probe, ready: false });
  let asked = 0;
  provider.listWorkspaces = async () => {
    asked += 1;
    throw new Error('asked');
  };
  const report = await t.engine.doctor({ repair: true });
  expect(asked).toBe(0);
  expect(report.warnings.join('\n')).not.toContain('could not list its workspaces');
});

it('asks a provider what it holds while it lists its leftovers, not after', async () => {
  t = makeTestEngine();
  const provider = await fake();
  // The leftovers answer only once the holdings were asked: asked in turn, each stalled engine cost doctor a bound more.
  let asked!: () => void;
  const holdingsAsked = new Promise<void>((resolve) => (asked = resolve));
  const list = provider.listWorkspaces.bind(provider);
  provider.listWorkspaces = async () => {
    asked();
    return list();
  };
  provider.leftovers = () =>
    Promise.race([
      holdingsAsked.then(() => []),
      new Promise<never>((_, fail) => setTimeout(() => fail(new Error('the holdings were not asked meanwhile')), 3_000)),
    ]);
  const report = await t.engine.doctor({ repair: true });
  expect(report.warnings.join('\n')).not.toContain('could not list its leftovers');
});
