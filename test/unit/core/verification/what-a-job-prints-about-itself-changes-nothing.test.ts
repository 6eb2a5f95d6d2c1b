/**
 * Success cannot be claimed by printing it (#16; terrarium's fabricated
 * receipts): a job that prints "verified", "PASS" lines and a receipt of
 * its own, in the engine's own receipt format, changes neither its status
 * (its real check still fails) nor its receipt, whose every field comes
 * from the engine's records.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

const FORGED =
  '{"receipt":{"job_id":"forged","status":"success","verification":{"outcome":"passed","checks":[]}},"sha256":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}';

describe('a job claiming its own success', () => {
  it('is still failure when its real check fails, and its receipt binds the engine verdict', async () => {
    t = makeTestEngine();
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    const pkg = await t.engine.run({
      workspaceId: ws,
      argv: ['echo', 'verified', '&&', 'echo', 'PASS: all checks passed', '&&', 'echo', 'verification passed', '&&', 'echo', FORGED],
      verify: [['cat', 'proof.txt']],
    });
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.verification!.outcome).toBe('failed');
    const receipt = await t.engine.receipt({ jobId: pkg.provenance.job_id! });
    expect(receipt.provenance.receipt_sha256).toBe(pkg.provenance.receipt_sha256);
    const document = JSON.parse(receipt.evidence[0]!.excerpt) as { receipt: Record<string, unknown> };
    expect(document.receipt.status).toBe('failure');
    expect(document.receipt.job_id).toBe(pkg.provenance.job_id);
    expect((document.receipt.verification as { outcome: string }).outcome).toBe('failed');
    expect(receipt.evidence[0]!.excerpt).not.toContain('forged');
  });

  it('without checks, is success by its exit alone and says nothing was verified', async () => {
    t = makeTestEngine();
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    const pkg = await t.engine.run({ workspaceId: ws, argv: ['echo', 'VERIFIED: receipt ok'] });
    expect(pkg.status).toBe('success');
    expect(pkg.provenance.verification).toBeUndefined();
    const receipt = JSON.parse((await t.engine.receipt({ jobId: pkg.provenance.job_id! })).evidence[0]!.excerpt) as { receipt: { verification: unknown } };
    expect(receipt.receipt.verification).toEqual({ outcome: 'none', checks: [] });
  });
});
