/**
 * `logs` with a tail longer than maxLines showed the START of the tail's
 * window (lines 51315–51514 of a 151,314-line log for a tail of 100,000) and
 * took 10 s shifting an array per line (new user). It shows the window's end,
 * the log's last lines, in one pass of constant work per line, and names the
 * page before it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeadspace, type Engine } from '../../../../src/api/index.js';

const home = mkdtempSync(join(tmpdir(), 'hs-logs-tail-'));
let engine: Engine;
let jobId: string;

beforeAll(async () => {
  engine = createHeadspace({ home, defaultProvider: 'fake' });
  const workspaceId = (await engine.create({})).provenance.workspace_id!;
  jobId = (await engine.run({ workspaceId, argv: ['trace', '100'] })).provenance.job_id!;
});
afterAll(() => {
  engine.close();
  rmSync(home, { recursive: true, force: true });
});

const numbers = (excerpt: string | undefined) => (excerpt ?? '').split('\n').map((line) => Number(/^\s*(\d+):/.exec(line)?.[1]));

describe('logs with a tail', () => {
  it('longer than maxLines shows the last maxLines lines and names the page before them', async () => {
    const page = await engine.logs({ jobId, tail: 50, maxLines: 10 });
    const total = page.evidence[0]!.total_lines!;
    expect(numbers(page.evidence[0]?.excerpt)).toEqual(Array.from({ length: 10 }, (_, i) => total - 9 + i));
    expect(page.evidence[0]?.truncated).toBe(true);
    expect(page.outcome_summary).toContain('10 of 50 line(s) shown');
    expect(page.attention.map((a) => a.text)).toEqual([
      `40 earlier line(s) of the last 50 were not shown: the page before is lines ${total - 19} to ${total - 10}`,
    ]);
  });

  it('within maxLines shows the whole window in order and suggests nothing more', async () => {
    const page = await engine.logs({ jobId, tail: 5 });
    const total = page.evidence[0]!.total_lines!;
    expect(numbers(page.evidence[0]?.excerpt)).toEqual([total - 4, total - 3, total - 2, total - 1, total]);
    expect(page.evidence[0]?.truncated).toBe(false);
    expect(page.attention).toEqual([]);
  });

  it('longer than the log shows it all', async () => {
    const page = await engine.logs({ jobId, tail: 100_000, maxLines: 1000 });
    const total = page.evidence[0]!.total_lines!;
    expect(numbers(page.evidence[0]?.excerpt)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(page.attention).toEqual([]);
  });
});
