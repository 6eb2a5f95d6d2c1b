/**
 * A receipt's inputs are the digests of what was put. What changes a
 * workspace's files besides its jobs is named in the receipt (a new user's
 * receipt named a prepare's buggy file as the input of a job that ran on a
 * settled fix): restores and settles before the job (`tree_changes`), the
 * input one of them may have replaced (`may_differ_after`), and the fork the
 * files began as (`forked_from`). An exported artifact goes on the receipt of
 * the job that ran last, naming its declarer when that is another job (a red
 * team bound a later job's bytes under an earlier job's receipt); after a
 * restore since that job, no receipt binds it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { JobReceipt } from '../../../../src/core/receipts/job-receipt.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter } from '../../../helpers/snapshots.js';

let t: TestEngine;
let dir: string;
afterEach(() => {
  t.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  t = makeTestEngine();
  dir = mkdtempSync(join(tmpdir(), 'hs-receipt-history-'));
  writeFileSync(join(dir, 'a.txt'), 'as put\n');
}
const receiptOf = async (jobId: string) => (JSON.parse((await t.engine.receipt({ jobId })).evidence[0]!.excerpt) as { receipt: JobReceipt }).receipt;
const tick = () => t.clock.advance(1000);

describe('a receipt and what changed the files besides jobs', () => {
  it('lists a restore before the job and marks the input it may have replaced, not one the checkpoint held', async () => {
    setUp();
    await t.engine.create({ workspaceId: 'w' });
    await t.engine.put({ workspaceId: 'w', hostPath: join(dir, 'a.txt'), destination: 'kept.txt' });
    tick();
    const cp = idAfter((await t.engine.checkpoint({ workspaceId: 'w' })).key_findings, 'checkpoint');
    tick();
    await t.engine.put({ workspaceId: 'w', hostPath: join(dir, 'a.txt'), destination: 'gone.txt' });
    tick();
    await t.engine.restore({ workspaceId: 'w', checkpointId: cp });
    tick();
    const job = await t.engine.run({ workspaceId: 'w', argv: ['true'] });
    const receipt = await receiptOf(job.provenance.job_id!);
    expect(receipt.tree_changes).toEqual([{ change: `restore ${cp}`, at: expect.any(String) }]);
    expect(receipt.inputs.map((i) => [i.destination, i.may_differ_after ?? null])).toEqual([
      ['kept.txt', null],
      ['gone.txt', `restore ${cp}`],
    ]);
  });

  it('marks the input a settled output changed, not the others', async () => {
    setUp();
    await t.engine.create({ workspaceId: 'p' });
    await t.engine.put({ workspaceId: 'p', hostPath: join(dir, 'a.txt'), destination: 'fixed.txt' });
    await t.engine.put({ workspaceId: 'p', hostPath: join(dir, 'a.txt'), destination: 'other.txt' });
    tick();
    await t.engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    await t.engine.run({ workspaceId: 'c', argv: ['write', 'fixed.txt', 'the fix'] });
    tick();
    const out = idAfter((await t.engine.seal({ workspaceId: 'c' })).key_findings, 'output');
    await t.engine.settle({ outputId: out, decision: 'select' });
    tick();
    const job = await t.engine.run({ workspaceId: 'p', argv: ['true'] });
    const receipt = await receiptOf(job.provenance.job_id!);
    expect(receipt.tree_changes?.map((c) => c.change)).toEqual([`settle ${out} select`]);
    expect(receipt.inputs.map((i) => [i.destination, i.may_differ_after ?? null])).toEqual([
      ['fixed.txt', `settle ${out} select`],
      ['other.txt', null],
    ]);
  });

  it('leaves both fields out when nothing but jobs changed the files', async () => {
    setUp();
    await t.engine.create({ workspaceId: 'w' });
    await t.engine.put({ workspaceId: 'w', hostPath: join(dir, 'a.txt'), destination: 'a.txt' });
    const job = await t.engine.run({ workspaceId: 'w', argv: ['true'] });
    const receipt = await receiptOf(job.provenance.job_id!);
    expect(receipt).not.toHaveProperty('tree_changes');
    expect(receipt).not.toHaveProperty('forked_from');
    expect(receipt.inputs[0]).not.toHaveProperty('may_differ_after');
  });

  it("names the fork a fork's files began as", async () => {
    setUp();
    await t.engine.create({ workspaceId: 'p' });
    await t.engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    const job = await t.engine.run({ workspaceId: 'c', argv: ['true'] });
    const receipt = await receiptOf(job.provenance.job_id!);
    expect(receipt.forked_from).toEqual({ workspace_id: 'p', checkpoint_id: expect.any(String), digest: expect.any(String) });
  });

  it('binds an export to the job that ran last, naming the declarer, and leaves the declarer alone', async () => {
    setUp();
    await t.engine.create({ workspaceId: 'w' });
    const a = await t.engine.run({ workspaceId: 'w', argv: ['write', 'out.txt', 'GOOD'], declares: [{ name: 'out.txt', purpose: 'result' }] });
    tick();
    const b = await t.engine.run({ workspaceId: 'w', argv: ['write', 'out.txt', 'EVIL'] });
    tick();
    const exported = await t.engine.export({ workspaceId: 'w', name: 'out.txt', to: join(dir, 'out.txt') });
    expect(exported.key_findings.join('\n')).toContain(`(the job that ran last here; declared by job ${a.provenance.job_id})`);
    const later = await receiptOf(b.provenance.job_id!);
    expect(later.artifacts.map((x) => [x.name, x.declared_by_job])).toEqual([['out.txt', a.provenance.job_id]]);
    const earlier = await receiptOf(a.provenance.job_id!);
    expect(earlier.version).toBe(1);
    expect(earlier.artifacts).toEqual([]);
  });

  it('binds no receipt to an export of bytes put after the last job', async () => {
    setUp();
    await t.engine.create({ workspaceId: 'w' });
    const job = await t.engine.run({ workspaceId: 'w', argv: ['write', 'report.txt', 'GOOD'], declares: [{ name: 'report.txt', purpose: 'report' }] });
    tick();
    await t.engine.put({ workspaceId: 'w', hostPath: join(dir, 'a.txt'), destination: 'report.txt', overwrite: true });
    tick();
    const exported = await t.engine.export({ workspaceId: 'w', name: 'report.txt', to: join(dir, 'report.txt') });
    expect(exported.key_findings.join('\n')).toContain('no job receipt binds this export');
    expect((await receiptOf(job.provenance.job_id!)).version).toBe(1);
  });

  it('names a restore that did not finish as a change too', async () => {
    setUp();
    await t.engine.create({ workspaceId: 'w' });
    const cp = idAfter((await t.engine.checkpoint({ workspaceId: 'w' })).key_findings, 'checkpoint');
    tick();
    await t.engine.put({ workspaceId: 'w', hostPath: join(dir, 'a.txt'), destination: 'in.txt' });
    tick();
    // A restore whose process died after it began: its intent stays open until doctor settles it.
    const store = SqliteStore.open(t.home);
    store.openIntent({
      workspaceId: 'w',
      jobId: null,
      op: 'restore',
      provider: 'fake',
      owner: { pid: 2 ** 22 - 3, started: '1' },
      createdAt: t.clock.now(),
      target: cp,
      traceId: null,
    });
    store.close();
    tick();
    const job = await t.engine.run({ workspaceId: 'w', argv: ['true'] });
    const receipt = await receiptOf(job.provenance.job_id!);
    expect(receipt.tree_changes?.map((c) => c.change)).toEqual([`restore ${cp} (unfinished)`]);
    expect(receipt.inputs[0]?.may_differ_after).toBe(`restore ${cp} (unfinished)`);
  });

  it('binds no receipt to an export made after a restore since the last job', async () => {
    setUp();
    await t.engine.create({ workspaceId: 'w' });
    const cp = idAfter((await t.engine.checkpoint({ workspaceId: 'w' })).key_findings, 'checkpoint');
    tick();
    const job = await t.engine.run({ workspaceId: 'w', argv: ['write', 'out.txt', 'x'], declares: [{ name: 'out.txt', purpose: 'result' }] });
    tick();
    await t.engine.restore({ workspaceId: 'w', checkpointId: cp });
    await t.engine.put({ workspaceId: 'w', hostPath: join(dir, 'a.txt'), destination: 'out.txt' });
    tick();
    const exported = await t.engine.export({ workspaceId: 'w', name: 'out.txt', to: join(dir, 'out.txt') });
    expect(exported.key_findings.join('\n')).toContain('no job receipt binds this export');
    expect((await receiptOf(job.provenance.job_id!)).version).toBe(1);
  });
});
