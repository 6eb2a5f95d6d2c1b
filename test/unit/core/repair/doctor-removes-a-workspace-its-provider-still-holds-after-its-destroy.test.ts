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
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
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

it('keeps a destroyed id that a create recorded again between the plan and the repair', async () => {
  t = makeTestEngine();
  const provider = await fake();
  await t.engine.create({ workspaceId: 'again' });
  failNextRemoval(provider);
  await t.engine.destroy({ workspaceId: 'again' });
  const repair: Repair = {
    kind: 'remove-workspace',
    target: 'workspace again at the fake provider',
    workspaceId: 'again',
    safe: true,
    reason: 'planned while it was recorded destroyed',
    action: { type: 'remove-workspace', provider: 'fake', workspaceId: 'again' },
  };
  // The id is recorded anew (its create then fails at the provider, which still holds the old one).
  await t.engine.create({ workspaceId: 'again' }).catch(() => undefined);
  const store = SqliteStore.open(t.home);
  try {
    const state = store.getWorkspace('again')?.state;
    expect(state).not.toBe('destroyed');
    const ctx = { store: () => store, provider: fake, clock: t.clock, traceId: 'trace-test' } as unknown as EngineContext;
    const [applied] = await applyRepairs(ctx, [repair]);
    expect(applied?.detail).toBe(`kept workspace again at the fake provider: it is recorded ${state} now`);
    expect(await provider.listWorkspaces()).toContain('again');
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
