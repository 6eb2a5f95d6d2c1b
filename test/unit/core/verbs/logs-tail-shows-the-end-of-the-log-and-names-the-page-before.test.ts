/**
 * `logs` with a tail longer than maxLines showed the START of the tail's
 * window (lines 51315–51514 of a 151,314-line log for a tail of 100,000) and
 * took 10 s shifting an array per line (new user). It shows the window's end,
 * the log's last lines, in one pass of constant work per line, and names the
 * page before it.
 */
import { describe, expect, it } from 'vitest';
import { lineNumbers, tracedJob } from '../../../helpers/traced-job.js';

const traced = tracedJob('hs-logs-tail-');

describe('logs with a tail', () => {
  it('longer than maxLines shows the last maxLines lines and names the page before them', async () => {
    const page = await traced.engine.logs({ jobId: traced.jobId, tail: 50, maxLines: 10 });
    const total = page.evidence[0]!.total_lines!;
    expect(lineNumbers(page.evidence[0]?.excerpt)).toEqual(Array.from({ length: 10 }, (_, i) => total - 9 + i));
    expect(page.evidence[0]?.truncated).toBe(true);
    expect(page.outcome_summary).toContain('10 of 50 line(s) shown');
    expect(page.attention.map((a) => a.text)).toEqual([
      `40 earlier line(s) of the last 50 were not shown: the page before is lines ${total - 19} to ${total - 10}`,
    ]);
  });

  it('within maxLines shows the whole window in order and suggests nothing more', async () => {
    const page = await traced.engine.logs({ jobId: traced.jobId, tail: 5 });
    const total = page.evidence[0]!.total_lines!;
    expect(lineNumbers(page.evidence[0]?.excerpt)).toEqual([total - 4, total - 3, total - 2, total - 1, total]);
    expect(page.evidence[0]?.truncated).toBe(false);
    expect(page.attention).toEqual([]);
  });

  it('longer than the log shows it all', async () => {
    const page = await traced.engine.logs({ jobId: traced.jobId, tail: 100_000, maxLines: 1000 });
    const total = page.evidence[0]!.total_lines!;
    expect(lineNumbers(page.evidence[0]?.excerpt)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(page.attention).toEqual([]);
  });
});
