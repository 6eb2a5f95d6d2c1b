/**
 * Every terminal job gets a receipt (#16), whoever writes its terminal
 * record: a job whose own process died is recorded by stop (cancelled) or
 * by doctor's repair (infrastructure_failure), and each also issues its
 * receipt in the same commit, binding that status. inspect of a job reads
 * its receipt digest and verification back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());
const deadOwner = { pid: 2 ** 22 - 3, started: '1' };

function receiptStatus(excerpt: string): string {
  return (JSON.parse(excerpt) as { receipt: { status: string } }).receipt.status;
}

describe('a job recorded by someone else', () => {
  it('gets its receipt from stop when its process is gone', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'orphaned' });
    const store = SqliteStore.open(t.home);
    store.beginJob({ id: 'job-lost', workspaceId: 'orphaned', argv: ['block'], startedAt: 0, owner: deadOwner });
    await t.engine.stop({ workspaceId: 'orphaned', apply: true, graceSeconds: 0 });
    const receipt = await t.engine.receipt({ jobId: 'job-lost' });
    expect(receiptStatus(receipt.evidence[0]!.excerpt)).toBe('cancelled');
    expect((await t.engine.inspect({ handle: 'job-lost' })).provenance.receipt_sha256).toBe(receipt.provenance.receipt_sha256);
    store.close();
  });

  it("gets its receipt from doctor's repair", async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'crashed' });
    const store = SqliteStore.open(t.home);
    store.beginJob({ id: 'job-lost', workspaceId: 'crashed', argv: ['block'], startedAt: 0, owner: deadOwner });
    store.openIntent({ workspaceId: 'crashed', jobId: 'job-lost', op: 'run', provider: 'fake', owner: deadOwner, createdAt: 0, traceId: null });
    await t.engine.doctor({ repair: true, apply: true });
    const receipt = await t.engine.receipt({ jobId: 'job-lost' });
    expect(receiptStatus(receipt.evidence[0]!.excerpt)).toBe('infrastructure_failure');
    store.close();
  });

  it('reads its verdict back through inspect', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const run = await t.engine.run({ workspaceId: 'w', argv: ['true'], verify: [['false']] });
    const inspected = await t.engine.inspect({ handle: run.provenance.job_id! });
    expect(inspected.status).toBe('failure');
    expect(inspected.outcome_summary).toContain('exited 0, but failed its verification');
    expect(inspected.provenance.verification).toEqual(run.provenance.verification);
    expect(inspected.provenance.receipt_sha256).toBe(run.provenance.receipt_sha256);
  });
});
