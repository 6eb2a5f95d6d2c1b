/**
 * The README says to pin the run's receipt_sha256. After an export the
 * receipt has a second version, which hashes otherwise: checked against the
 * pinned digest it failed with nothing but two digests (a new user, session
 * 12). It still fails (its previous_sha256 naming the pinned digest proves
 * nothing: a forger writes that too), but now says the file is a later
 * version and which one to verify; the pinned version itself verifies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { verifyReceiptFile } from '../../../../src/core/receipts/verify-receipt.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
let dir: string;
afterEach(() => {
  t.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('a later receipt version checked against the pinned first one', () => {
  it('fails, saying it is version 2 made after the pinned one and to verify version 1', async () => {
    t = makeTestEngine();
    dir = mkdtempSync(join(tmpdir(), 'hs-receipt-pinned-'));
    const ws = (await t.engine.create({})).provenance.workspace_id!;
    const run = await t.engine.run({ workspaceId: ws, argv: ['write', 'out.txt', 'v1'], declares: [{ name: 'out.txt', purpose: 'result' }] });
    const pinned = run.provenance.receipt_sha256!;
    await t.engine.export({ workspaceId: ws, name: 'out.txt', to: join(dir, 'out.txt') });
    const fileOf = async (version?: number) => {
      const file = join(dir, `r${version ?? 'latest'}.json`);
      writeFileSync(
        file,
        `${(await t.engine.receipt({ jobId: run.provenance.job_id!, ...(version === undefined ? {} : { version }) })).evidence[0]!.excerpt}\n`,
      );
      return file;
    };
    const later = verifyReceiptFile(await fileOf(), { expectSha256: pinned });
    expect(later.ok).toBe(false);
    const check = later.checks.find((c) => c.what === 'expected digest')!;
    expect(check.ok).toBe(false);
    expect(check.detail).toContain('it is version 2, made after the pinned one');
    expect(check.detail).toContain("verify version 1's own file");
    expect(verifyReceiptFile(await fileOf(1), { expectSha256: pinned }).ok).toBe(true);
  });
});
