/**
 * fork-bomb: contained when forks were refused at or below the pids budget,
 * the job ended on its own (success) and the host can still start a process.
 */
import { describe, expect, it } from 'vitest';
import { forkBomb } from '../../../../src/core/probe/scenarios-budgets.js';
import { job } from './facts.js';

const health = { pidsLimit: 64, memoryBytes: 128 << 20, hostCanSpawn: true };

describe('fork-bomb', () => {
  it('is contained when held at the budget with forks refused', () => {
    expect(forkBomb.judge(job('bomb: 63 62 600\nprobe-done\n'), health)).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('held at 63 processes (budget 64)'),
    });
  });

  it('escapes when more processes ran than the budget allows', () => {
    expect(forkBomb.judge(job('bomb: 364 363 0\nprobe-done\n'), health).verdict).toBe('escaped');
  });

  it('escapes when no fork was ever refused', () => {
    expect(forkBomb.judge(job('bomb: 40 39 0\nprobe-done\n'), health).verdict).toBe('escaped');
  });

  it('escapes when the host can no longer start a process', () => {
    expect(forkBomb.judge(job('bomb: 63 62 600\nprobe-done\n'), { ...health, hostCanSpawn: false }).verdict).toBe('escaped');
  });
});
