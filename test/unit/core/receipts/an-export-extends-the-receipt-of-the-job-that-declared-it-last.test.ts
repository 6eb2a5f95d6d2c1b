/**
 * An artifact declared again by a later job is that job's to produce: its
 * export extends the later job's receipt, never the first declarer's. A
 * new-user review found the first job's receipt binding bytes that only the
 * second job wrote, and the second job's receipt left without the export.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
let dir: string;
afterEach(() => {
  t.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('an export of an artifact declared by two jobs', () => {
  it("issues the next version of the later job's receipt and leaves the first job's alone", async () => {
    t = makeTestEngine();
    dir = mkdtempSync(join(tmpdir(), 'hs-receipt-owner-'));
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    const first = await t.engine.run({ workspaceId: ws, argv: ['write', 'out.txt', 'v1'], declares: [{ name: 'out.txt', purpose: 'first' }] });
    const second = await t.engine.run({ workspaceId: ws, argv: ['write', 'out.txt', 'v2'], declares: [{ name: 'out.txt', purpose: 'second' }] });
    await t.engine.export({ workspaceId: ws, name: 'out.txt', to: join(dir, 'out.txt') });
    const envelopeOf = async (jobId: string) =>
      JSON.parse((await t.engine.receipt({ jobId })).evidence[0]!.excerpt) as { receipt: { version: number; artifacts: Array<{ name: string }> } };
    const later = await envelopeOf(second.provenance.job_id!);
    expect(later.receipt.version).toBe(2);
    expect(later.receipt.artifacts.map((a) => a.name)).toEqual(['out.txt']);
    const earlier = await envelopeOf(first.provenance.job_id!);
    expect(earlier.receipt.version).toBe(1);
    expect(earlier.receipt.artifacts).toEqual([]);
  });
});
