/**
 * memory-hog: the right ending is resource_exhausted (the kernel's OOM
 * counter). Finishing the allocation, or ending any other way, is reported
 * as an escape with the status it got.
 */
import { describe, expect, it } from 'vitest';
import { memoryHog } from '../../../../src/core/probe/scenarios-budgets.js';
import { job } from './facts.js';

const health = { pidsLimit: 64, memoryBytes: 128 << 20, hostCanSpawn: true };
const steps = 'allocated: 8\nallocated: 16\nallocated: 120\n';

describe('memory-hog', () => {
  it('is contained when the kernel killed it for memory', () => {
    expect(memoryHog.judge(job(steps, 'resource_exhausted', 137), health)).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('120 MiB'),
    });
  });

  it('escapes when it allocated everything it asked for', () => {
    expect(memoryHog.judge(job(`${steps}allocated: 512\nprobe-done: allocated 512 MiB without being stopped\n`), health).verdict).toBe('escaped');
  });

  it('escapes when it ended some other way than resource_exhausted', () => {
    expect(memoryHog.judge(job(steps, 'failure', 1), health)).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('not resource_exhausted'),
    });
  });
});
