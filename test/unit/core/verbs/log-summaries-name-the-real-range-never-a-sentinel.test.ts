/**
 * A log summary names the range a reader asked for in words bounded by the
 * log's real length: an open end (the dashboard searches to the largest line
 * number the verb takes) reads "the whole log" or "to the end", never
 * "lines 1:2147483647" — an internal sentinel leaking into text.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeadspace, type Engine } from '../../../../src/api/index.js';
import { readLogPage } from '../../../../src/ui/log-page.js';

const home = mkdtempSync(join(tmpdir(), 'hs-logs-sentinel-'));
let engine: Engine;
let jobId: string;
const OPEN_END = 2 ** 31 - 1;

beforeAll(async () => {
  engine = createHeadspace({ home, defaultProvider: 'fake' });
  const workspaceId = (await engine.create({})).provenance.workspace_id!;
  jobId = (await engine.run({ workspaceId, argv: ['trace', '20'] })).provenance.job_id!;
});
afterAll(() => {
  engine.close();
  rmSync(home, { recursive: true, force: true });
});

describe('log summaries', () => {
  it('say "in the whole log" for a dashboard search given no range', async () => {
    const page = await readLogPage(engine, { jobId, from: 1, count: 50, grep: 'step' });
    expect(page.summary).toContain('in the whole log');
    expect(page.summary).not.toContain(String(OPEN_END));
  });

  it('say "to the end" for a search from a later line with an open end', async () => {
    const pkg = await engine.logs({ jobId, grep: 'step', lines: { from: 5, to: OPEN_END } });
    expect(pkg.outcome_summary).toContain('in lines 5 to the end');
    expect(pkg.outcome_summary).not.toContain(String(OPEN_END));
  });

  it('keep a closed range inside the log as given', async () => {
    const searched = await engine.logs({ jobId, grep: 'step', lines: { from: 2, to: 4 } });
    expect(searched.outcome_summary).toContain('in lines 2:4');
    const read = await engine.logs({ jobId, lines: { from: 2, to: 4 } });
    expect(read.outcome_summary).toContain('lines 2:4');
  });

  it('never show the sentinel for a plain read with an open end', async () => {
    const read = await engine.logs({ jobId, lines: { from: 1, to: OPEN_END } });
    expect(read.outcome_summary).toContain('the whole log');
    expect(read.outcome_summary).not.toContain(String(OPEN_END));
  });
});
