/**
 * `receipt JOB --out FILE` refuses a FILE that already holds something else
 * (DESTINATION_EXISTS, exit 1, the file untouched) unless overwrite is given,
 * as export does: a new user's receipt call over MCP replaced his source
 * file and reported success. A file holding exactly this receipt is left as
 * it is, so writing it twice is no error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { refusal } from '../../../helpers/snapshots.js';

let t: TestEngine;
let dir: string;
afterEach(() => {
  t.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('receipt out', () => {
  it('refuses a file holding something else, and replaces it only with overwrite', async () => {
    t = makeTestEngine();
    dir = mkdtempSync(join(tmpdir(), 'hs-receipt-out-'));
    await t.engine.create({ workspaceId: 'w' });
    const jobId = (await t.engine.run({ workspaceId: 'w', argv: ['true'] })).provenance.job_id!;
    const file = join(dir, 'work.py');
    writeFileSync(file, 'print("my uncommitted work")\n');
    const error = await refusal(t.engine.receipt({ jobId, out: file }));
    expect(error.code).toBe('DESTINATION_EXISTS');
    expect(readFileSync(file, 'utf8')).toBe('print("my uncommitted work")\n');
    await t.engine.receipt({ jobId, out: file, overwrite: true });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toHaveProperty('sha256');
    await expect(t.engine.receipt({ jobId, out: file })).resolves.toMatchObject({ status: 'success' });
  });
});
