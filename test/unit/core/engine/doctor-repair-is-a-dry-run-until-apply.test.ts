/**
 * doctor --repair lists each repair and changes nothing; --apply makes only
 * the safe ones and reports the judgement calls it skipped; --verify
 * diagnoses again. A job whose process is gone ends up with one terminal
 * record and a note; the workspace is usable again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { attentionTexts } from '../../../helpers/result-packages.js';

let t: TestEngine;
afterEach(() => t.cleanup());
const deadOwner = { pid: 2 ** 22 - 3, started: '1' };

describe('doctor --repair', () => {
  it('plans without changing anything, then applies the safe repairs and verifies', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'crashed' });
    const store = SqliteStore.open(t.home);
    store.beginJob({ id: 'job-lost', workspaceId: 'crashed', argv: ['block'], startedAt: 0, owner: deadOwner });
    store.openIntent({ workspaceId: 'crashed', jobId: 'job-lost', op: 'run', provider: 'fake', owner: deadOwner, createdAt: 0 });
    store.openIntent({ workspaceId: 'crashed', jobId: null, op: 'remove', provider: 'fake', owner: deadOwner, createdAt: 0 });

    const dry = await t.engine.doctor({ repair: true });
    expect(dry.outcome_summary).toContain('this dry run changed nothing');
    expect(dry.key_findings.join('\n')).toContain('would finish job job-lost');
    expect(attentionTexts(dry).join('\n')).toMatch(/judgement call, skipped: settle intent #\d+ \(remove on workspace crashed\).*destroy it again/);
    expect(store.getJob('job-lost')?.state).toBe('running');
    expect(store.openIntents()).toHaveLength(2);

    const applied = await t.engine.doctor({ repair: true, apply: true, verify: true });
    expect(applied.status).toBe('success');
    expect(applied.key_findings.join('\n')).toContain('verify: nothing safe is left to repair');
    const job = store.getJob('job-lost')!;
    expect(job).toMatchObject({ state: 'finished', status: 'infrastructure_failure' });
    expect(job.note).toContain("doctor's repair");
    expect(store.openIntents().map((i) => i.op)).toEqual(['remove']);
    expect(store.getWorkspace('crashed')?.state).toBe('ready');
    store.close();
    expect((await t.engine.run({ workspaceId: 'crashed', argv: ['echo', 'fine'] })).status).toBe('success');
  });

  it('refuses --apply without --repair, naming the way', async () => {
    t = makeTestEngine();
    await expect(t.engine.doctor({ apply: true })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});
