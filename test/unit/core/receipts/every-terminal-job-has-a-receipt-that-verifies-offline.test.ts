/**
 * Every job that ends gets a receipt (#16): stored, retrievable by the
 * receipt verb, written to a file on request, and verifiable offline from
 * that file alone. Verification fails on a tampered receipt (an edited
 * field), on a receipt rewritten with a matching digest when the digest was
 * pinned, and on a tampered artifact. Exporting one of the job's artifacts
 * issues the next version, naming the previous one's sha256.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalDigest, canonicalJson } from '../../../../src/core/canonical-json.js';
import { verifyReceiptFile } from '../../../../src/core/receipts/verify-receipt.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
let dir: string;
afterEach(() => {
  t.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function setUp() {
  t = makeTestEngine();
  dir = mkdtempSync(join(tmpdir(), 'hs-receipt-'));
  return (await t.engine.create({})).provenance.workspace_id!;
}

describe('job receipts', () => {
  it('exist for every terminal status, bound to the digest the run result names', async () => {
    t = makeTestEngine();
    dir = mkdtempSync(join(tmpdir(), 'hs-receipt-'));
    const ws = (await t.engine.create({ budget: { wallClockSeconds: 1 } })).provenance.workspace_id!;
    for (const argv of [['true'], ['fail', '2'], ['sleep', '5'], ['no-such-tool']]) {
      const run = await t.engine.run({ workspaceId: ws, argv });
      const receipt = await t.engine.receipt({ jobId: run.provenance.job_id! });
      expect(receipt.provenance.receipt_sha256).toBe(run.provenance.receipt_sha256);
      const envelope = JSON.parse(receipt.evidence[0]!.excerpt) as { receipt: { status: string }; sha256: string };
      expect(envelope.receipt.status).toBe(run.status);
      expect(canonicalDigest(envelope.receipt)).toBe(envelope.sha256);
      expect(receipt.evidence[0]!.excerpt).toBe(canonicalJson(envelope));
    }
  });

  it('verify offline, and fail on an edited field, on a rewrite against a pinned digest and on a tampered artifact', async () => {
    const ws = await setUp();
    const run = await t.engine.run({ workspaceId: ws, argv: ['write', 'out.txt', 'forty-two'], declares: [{ name: 'out.txt', purpose: 'the answer' }] });
    const exported = await t.engine.export({ workspaceId: ws, name: 'out.txt', to: join(dir, 'out.txt') });
    expect(exported.key_findings.join('\n')).toContain('receipt is now version 2');
    const file = join(dir, 'receipt.json');
    const got = await t.engine.receipt({ jobId: run.provenance.job_id!, out: file });
    const pinned = got.provenance.receipt_sha256!;
    expect(pinned).not.toBe(run.provenance.receipt_sha256);

    expect(verifyReceiptFile(file, { artifactsDir: dir, expectSha256: pinned }).ok).toBe(true);
    const envelope = JSON.parse(readFileSync(file, 'utf8')) as { receipt: Record<string, unknown>; sha256: string };
    expect(envelope.receipt.version).toBe(2);
    expect(envelope.receipt.previous_sha256).toBe(run.provenance.receipt_sha256);

    const edited = join(dir, 'edited.json');
    writeFileSync(edited, canonicalJson({ ...envelope, receipt: { ...envelope.receipt, status: 'failure' } }));
    const editedVerdict = verifyReceiptFile(edited);
    expect(editedVerdict.ok).toBe(false);
    expect(editedVerdict.checks.find((c) => !c.ok)!.detail).toContain('it was altered');

    const rewritten = join(dir, 'rewritten.json');
    const forged = { ...envelope.receipt, status: 'failure' };
    writeFileSync(rewritten, canonicalJson({ receipt: forged, sha256: canonicalDigest(forged) }));
    expect(verifyReceiptFile(rewritten).ok).toBe(true);
    expect(verifyReceiptFile(rewritten, { expectSha256: pinned }).ok).toBe(false);

    writeFileSync(join(dir, 'out.txt'), 'forty-three');
    const tampered = verifyReceiptFile(file, { artifactsDir: dir });
    expect(tampered.ok).toBe(false);
    expect(tampered.checks.find((c) => c.what === 'artifact out.txt')!.ok).toBe(false);
    const viaVerb = await t.engine.receipt({ verifyFile: file, artifactsDir: dir });
    expect(viaVerb.status).toBe('failure');
  });

  it('keep every version: the first stays retrievable after an export', async () => {
    const ws = await setUp();
    const run = await t.engine.run({ workspaceId: ws, argv: ['write', 'a.txt', 'x'], declares: [{ name: 'a.txt', purpose: 'p' }] });
    await t.engine.export({ workspaceId: ws, name: 'a.txt', to: join(dir, 'a.txt') });
    const first = await t.engine.receipt({ jobId: run.provenance.job_id!, version: 1 });
    expect(first.provenance.receipt_sha256).toBe(run.provenance.receipt_sha256);
  });

  it('record env names and never a value', async () => {
    const ws = await setUp();
    const run = await t.engine.run({ workspaceId: ws, argv: ['env', 'API_TOKEN'], env: { API_TOKEN: 'hunter2-secret-value' } });
    const text = (await t.engine.receipt({ jobId: run.provenance.job_id! })).evidence[0]!.excerpt;
    expect(text).toContain('"names":["API_TOKEN"]');
    expect(text).not.toContain('hunter2');
  });
});
