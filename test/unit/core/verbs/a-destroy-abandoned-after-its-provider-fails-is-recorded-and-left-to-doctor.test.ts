/**
 * A destroy its provider fails (exit 7: an engine stopped, unreachable or
 * silent) keeps the workspace recorded, to be destroyed once the provider
 * answers. When it never will (a docker engine gone for good), the record
 * stayed for ever and every gc failed on it: `abandon` records it destroyed
 * anyway, after the provider failed and only then, says what failed, and
 * lists what the provider held as unverified; doctor names it if the
 * provider answers again, and its repair removes it there.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineWithProviders } from '../../../../src/core/engine.js';
import { EngineError, ProviderError } from '../../../../src/core/errors.js';
import type { Provider } from '../../../../src/core/provider.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const fake = async (): Promise<Provider> => (t.engine as EngineWithProviders).provider('fake');

/** The provider fails every removal with `error` until the returned function puts its own back. */
function failRemovals(provider: Provider, error: () => Error): () => void {
  const remove = provider.remove.bind(provider);
  provider.remove = async () => {
    throw error();
  };
  return () => {
    provider.remove = remove;
  };
}

const engineGone = () => new ProviderError('the Docker Engine failed answering about the workspace container: connect ENOENT', { hint: 'start the engine' });

describe('a destroy whose provider fails the removal', () => {
  it('fails with exit 7, keeps the record, and names abandon as the way out when the provider will never answer', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    failRemovals(await fake(), engineGone);
    const failed = await t.engine.destroy({ workspaceId: 'w' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(EngineError);
    expect((failed as EngineError).category).toBe('infrastructure_failure');
    expect((failed as EngineError).hint).toContain('start the engine');
    expect((failed as EngineError).hint).toContain(
      'destroy with abandon (from the command line or the library; not offered over MCP) records the workspace destroyed',
    );
    expect((await t.engine.inspect({ handle: 'w' })).outcome_summary).toContain('ready');
  });

  it('with abandon, records it destroyed, says what failed, and doctor removes it once the provider answers again', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const provider = await fake();
    const answerAgain = failRemovals(provider, engineGone);
    const abandoned = await t.engine.destroy({ workspaceId: 'w', abandon: true });
    expect(abandoned.status).toBe('success');
    expect(abandoned.outcome_summary).toBe('workspace w was recorded destroyed; its removal on fake failed and was abandoned');
    expect(abandoned.key_findings).toContain('unverified: runtime, storage');
    expect(abandoned.warnings.join('\n')).toContain('the fake provider failed the removal (the Docker Engine failed answering');
    await expect(t.engine.destroy({ workspaceId: 'w' })).rejects.toMatchObject({ code: 'WORKSPACE_DESTROYED' });

    answerAgain();
    const applied = await t.engine.doctor({ repair: true, apply: true });
    expect(applied.key_findings.join('\n')).toContain('repaired: removed workspace w at the fake provider');
    expect(await provider.listWorkspaces()).not.toContain('w');
  });

  it('with abandon, still fails on an error that is not the machinery failing, and keeps the record', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    failRemovals(await fake(), () => new EngineError('BAD_ARGUMENT', 'not a removal this provider makes', { hint: 'none' }));
    await expect(t.engine.destroy({ workspaceId: 'w', abandon: true })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    expect((await t.engine.inspect({ handle: 'w' })).outcome_summary).toContain('ready');
  });

  it('takes a provider throwing what it never meant to as a failed removal: exit 7 naming abandon, or abandoned with it', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    failRemovals(await fake(), () => new Error("ENOTDIR: not a directory, scandir '/somewhere/meta.json'"));
    await expect(t.engine.destroy({ workspaceId: 'w' })).rejects.toMatchObject({
      code: 'PROVIDER_FAILURE',
      hint: expect.stringContaining('destroy with abandon'),
    });
    const abandoned = await t.engine.destroy({ workspaceId: 'w', abandon: true });
    expect(abandoned.warnings.join('\n')).toContain('the fake provider failed the removal (the fake provider failed removing workspace w: ENOTDIR');
  });

  it('with abandon, destroys as ever when the removal succeeds', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const done = await t.engine.destroy({ workspaceId: 'w', abandon: true });
    expect(done.outcome_summary).toBe('workspace w was destroyed on fake');
    expect(done.key_findings).toContain('unverified: (none)');
    expect(done.warnings).toEqual([]);
  });
});
