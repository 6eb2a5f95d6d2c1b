/**
 * host-env: the engine process holds a random variable while the job runs;
 * its value anywhere in the environments the job can read is an escape.
 */
import { describe, expect, it } from 'vitest';
import { hostEnv } from '../../../../src/core/probe/scenarios-isolation.js';
import { job } from './facts.js';

describe('host-env', () => {
  it('is contained when the value appears in no environment', () => {
    expect(hostEnv.judge(job('environ: /proc/self/environ PATH=/usr/bin HOME=/tmp\nprobe-done\n'), { value: 'hsprobe-env-1' }).verdict).toBe('contained');
  });

  it('escapes when the value appears in any environment', () => {
    expect(hostEnv.judge(job('environ: /proc/1/environ X=hsprobe-env-1\nprobe-done\n'), { value: 'hsprobe-env-1' }).verdict).toBe('escaped');
  });
});
