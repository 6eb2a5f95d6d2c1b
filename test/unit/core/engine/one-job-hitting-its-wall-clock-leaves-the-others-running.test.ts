/**
 * The wall clock is per job, also when a policy allows several at once
 * (#12 item 8): one job reaching its budget is ended as timeout, and the job
 * running beside it runs on to its own end. Real time: the fake's virtual
 * sleep moves the virtual clock itself, so two sleepers cannot overlap on it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { waitForJobStatus } from '../../../helpers/wait-for-job.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('a wall clock in a workspace with two jobs at once', () => {
  it('ends only the job whose budget ran out', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'pair', budget: { concurrency: 2, wallClockSeconds: 3 } });
    const long = t.engine.run({ workspaceId: 'pair', jobId: 'job-long', argv: ['block'] });
    await waitForJobStatus(t.engine, 'job-long', 'running');
    await new Promise((r) => setTimeout(r, 1000));
    // Starts about 1 s in and sleeps 2.5 s: it spans the first job's deadline (3 s) and ends before its own.
    const short = t.engine.run({ workspaceId: 'pair', jobId: 'job-short', argv: ['sleep', '2.5', '&&', 'echo', 'done'] });
    await waitForJobStatus(t.engine, 'job-short', 'running');

    const ended = await long;
    expect(ended.status).toBe('timeout');
    expect((await t.engine.inspect({ handle: 'job-short' })).status).toBe('running');

    const finished = await short;
    expect(finished.status).toBe('success');
    expect(finished.provenance.job_id).toBe('job-short');
    expect(Date.parse(finished.provenance.started_at!)).toBeLessThan(Date.parse(ended.provenance.finished_at!));
  });
});
