/**
 * process-outlives-job: after the job, a marked process in the host's /proc
 * or anything the provider still found in the workspace is an escape.
 */
import { describe, expect, it } from 'vitest';
import { processOutlivesJob } from '../../../../src/core/probe/scenarios-budgets.js';
import { job } from './facts.js';

const out = 'started: setsid, nohup, double fork\nprobe-done\n';

describe('process-outlives-job', () => {
  it('is contained when neither the host scan nor the provider found anything', () => {
    expect(processOutlivesJob.judge(job(out), { remaining: [], providerFound: false, providerEmpty: true }).verdict).toBe('contained');
  });

  it('escapes when the host scan finds a marked process, naming it', () => {
    const remaining = [{ pid: 77, uids: [600000], capEff: '0', command: 'sleep 61', nested: true }];
    expect(processOutlivesJob.judge(job(out), { remaining, providerFound: false, providerEmpty: true })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('pid 77 sleep 61'),
    });
  });

  it('escapes when only the provider still found something', () => {
    expect(processOutlivesJob.judge(job(out), { remaining: [], providerFound: true, providerEmpty: true }).verdict).toBe('escaped');
  });
});
