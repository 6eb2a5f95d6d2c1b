/**
 * A receipt binds the job's output by the sha256 of the bytes kept (at
 * most the output budget) with the kept and total byte counts (#16). run
 * hashes the bytes as its sink writes them; the digest equals that of the
 * log file read back, whole or truncated.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function outputOf(argv: string[], budget: Record<string, number> = {}) {
  t = makeTestEngine();
  const ws = (await t.engine.create({ budget })).provenance.workspace_id!;
  const jobId = (await t.engine.run({ workspaceId: ws, argv })).provenance.job_id!;
  const receipt = JSON.parse((await t.engine.receipt({ jobId })).evidence[0]!.excerpt) as {
    receipt: { output: { sha256: string; kept_bytes: number; total_bytes: number } };
  };
  const log = readFileSync(join(t.home, 'jobs', `${jobId}.log`));
  return { output: receipt.receipt.output, logSha256: `sha256:${createHash('sha256').update(log).digest('hex')}`, logBytes: log.length };
}

describe("a receipt's output binding", () => {
  it('is the digest of the whole output when all of it was kept', async () => {
    const { output, logSha256 } = await outputOf(['echo', 'hello']);
    expect(output).toEqual({ sha256: `sha256:${createHash('sha256').update('hello\n').digest('hex')}`, kept_bytes: 6, total_bytes: 6 });
    expect(output.sha256).toBe(logSha256);
  });

  it('is the digest of the kept bytes, with both counts, when the output budget truncated it', async () => {
    const { output, logSha256, logBytes } = await outputOf(['flood', '50000'], { outputBytes: 4096 });
    expect(output.sha256).toBe(logSha256);
    expect(output.kept_bytes).toBe(logBytes);
    expect(output.kept_bytes).toBeLessThanOrEqual(4096);
    expect(output.total_bytes).toBe(50000);
  });
});
