/**
 * `logs` with grep and a range of lines searches that range only (#21): a
 * reader pages through the matches of a long log by starting the next search
 * after the last match shown, and each page is bounded by maxLines. grep with
 * head or tail is still refused.
 */
import { describe, expect, it } from 'vitest';
import { lineNumbers, tracedJob } from '../../../helpers/traced-job.js';

const traced = tracedJob('hs-logs-range-');

describe('logs with grep and lines', () => {
  it('returns only matches inside the range, at most maxLines, marked truncated when more matched', async () => {
    const page = await traced.engine.logs({ jobId: traced.jobId, grep: 'step=0000[2-5]', lines: { from: 25, to: 2 ** 31 - 1 }, maxLines: 10 });
    expect(lineNumbers(page.evidence[0]?.excerpt)).toEqual([25, 26, 27, 28, 29, 30, 31, 32, 33, 34]);
    expect(page.evidence[0]?.truncated).toBe(true);
    const next = await traced.engine.logs({ jobId: traced.jobId, grep: 'step=0000[2-5]', lines: { from: 35, to: 50 }, maxLines: 10 });
    expect(lineNumbers(next.evidence[0]?.excerpt)).toEqual([35, 36, 37, 38, 39, 40, 41, 42, 43, 44]);
    const last = await traced.engine.logs({ jobId: traced.jobId, grep: 'step=0000[2-5]', lines: { from: 55, to: 100 }, maxLines: 10 });
    expect(lineNumbers(last.evidence[0]?.excerpt)).toEqual([55, 56, 57, 58, 59, 60]);
    expect(last.evidence[0]?.truncated).toBe(false);
  });

  it('still refuses grep with head or tail', async () => {
    await expect(traced.engine.logs({ jobId: traced.jobId, grep: 'x', head: 5 })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    await expect(traced.engine.logs({ jobId: traced.jobId, grep: 'x', tail: 5, lines: { from: 1, to: 2 } })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  });
});
