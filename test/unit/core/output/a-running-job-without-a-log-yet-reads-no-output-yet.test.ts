/**
 * A detached job whose supervisor has not opened its log yet has no output
 * so far: its evidence says so, not "no longer kept", which reads as lost
 * output (a new user's status right after a detached run). An ended job
 * whose log is gone still says its output is no longer kept.
 */
import { describe, expect, it } from 'vitest';
import type { EngineContext } from '../../../../src/core/context.js';
import { jobOutputEvidence } from '../../../../src/core/output/job-evidence.js';
import type { JobRecord } from '../../../../src/core/store/sqlite-store.js';

const ctx = { logPath: () => '/nonexistent/headspace-test/job.log' } as unknown as EngineContext;
const job = (state: JobRecord['state']) => ({ id: 'job-1', state, outputBytes: 0, storedBytes: 0 }) as unknown as JobRecord;

describe('the evidence of a job without a log', () => {
  it('reads "no output yet" while the job runs, and "no longer kept" once it ended', () => {
    expect(jobOutputEvidence(ctx, job('running')).excerpt).toBe('(no output yet)');
    expect(jobOutputEvidence(ctx, job('finished')).excerpt).toBe('(the captured output is no longer kept)');
  });
});
