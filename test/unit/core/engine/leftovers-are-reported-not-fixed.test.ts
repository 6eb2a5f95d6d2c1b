/**
 * Every verb reconciles at entry and REPORTS leftovers as attention items:
 * an intent whose process died before settling it, a job recorded running
 * whose process is gone, a workspace the provider no longer knows. Nothing
 * is fixed silently: the state reads the same before and after.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { attentionTexts } from '../../../helpers/result-packages.js';

let t: TestEngine;
afterEach(() => t.cleanup());

// A pid that is certainly not running, with a start time that cannot match.
const deadOwner = { pid: 2 ** 22 - 3, started: '1' };

describe('reconciliation at entry', () => {
  it('writes an intent before the provider call and settles it after', async () => {
    t = makeTestEngine();
    const created = await t.engine.create({ workspaceId: 'journal' });
    await t.engine.run({ workspaceId: 'journal', argv: ['echo', 'x'] });
    const store = SqliteStore.open(t.home);
    expect(store.countIntents()).toBe(2); // create + run
    expect(store.openIntents()).toEqual([]);
    store.close();
    expect(created.attention).toEqual([]);
  });

  it('reports an unsettled intent of a dead process on the next verb, and leaves it unsettled', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'crashy' });
    const store = SqliteStore.open(t.home);
    store.openIntent({ workspaceId: 'crashy', jobId: null, op: 'run', provider: 'fake', owner: deadOwner, createdAt: 0 });
    const pkg = await t.engine.ls();
    expect(attentionTexts(pkg).join('\n')).toMatch(/intent #\d+ \(run on workspace crashy\) was never settled/);
    expect(store.openIntents()).toHaveLength(1);
    store.close();
  });

  it('names destroy as the way out of a destroy cut short, not a doctor round trip', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'halfgone' });
    const store = SqliteStore.open(t.home);
    store.openIntent({ workspaceId: 'halfgone', jobId: null, op: 'remove', provider: 'fake', owner: deadOwner, createdAt: 0 });
    const pkg = await t.engine.ls();
    const item = pkg.attention.find((a) => a.kind === 'unsettled-intent');
    expect(item?.text).toMatch(/^the destroy of workspace halfgone was cut short: intent #\d+ was never settled .* destroy it again to finish$/);
    expect(item?.action).toEqual({ verb: 'destroy', args: { workspaceId: 'halfgone' } });
    await t.engine.destroy({ workspaceId: 'halfgone' });
    expect(store.getWorkspace('halfgone')?.state).toBe('destroyed');
    expect(attentionTexts(await t.engine.ls()).join('\n')).not.toContain('cut short');
    store.close();
  });

  it('reports a running job whose process is gone, naming stop as the way out', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'orphan' });
    const store = SqliteStore.open(t.home);
    store.beginJob({ id: 'job-lost', workspaceId: 'orphan', argv: ['block'], startedAt: 0, owner: deadOwner });
    const pkg = await t.engine.inspect({ handle: 'orphan' });
    expect(attentionTexts(pkg).join('\n')).toContain('job job-lost in workspace orphan is recorded as running but its process');
    expect(pkg.attention.find((a) => a.kind === 'orphaned-job')?.action).toEqual({ verb: 'stop', args: { workspaceId: 'orphan', apply: true } });
    expect(store.getJob('job-lost')?.state).toBe('running');
    store.close();
  });

  it('reports a workspace the provider no longer knows', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'vanished' });
    const provider = await t.engine.provider('fake');
    await provider.remove('vanished');
    const pkg = await t.engine.inspect({ handle: 'vanished' });
    expect(attentionTexts(pkg).join('\n')).toContain('the fake provider no longer knows it');
  });
});
