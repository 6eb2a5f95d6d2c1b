/**
 * pty-pool: every sandbox's devpts draws on one host-wide kernel.pty.max
 * pool, so a job that can allocate even one pseudo-terminal can allocate
 * all of them (red team 2, item 2). Any allocation is an escape; contained
 * means every way was refused, and a job that did not report is skipped.
 */
import { describe, expect, it } from 'vitest';
import { ptyPool } from '../../../../src/core/probe/scenarios-terminals.js';
import { job } from './facts.js';

describe('pty-pool', () => {
  it('escapes when any way allocates a pty, naming each way once', () => {
    const out =
      'allocated: open /dev/ptmx\nrefused: open /dev/pts/ptmx No such file or directory\nallocated: openpty()\nallocated: open /dev/ptmx\nprobe-done\n';
    const verdict = ptyPool.judge(job(out), {});
    expect(verdict.verdict).toBe('escaped');
    expect(verdict.evidence).toContain('3 pseudo-terminal(s)');
    expect(verdict.lines).toEqual(['allocated: open /dev/ptmx', 'allocated: openpty()']);
  });

  it('is contained when every attempt is refused, and says how', () => {
    const out =
      'refused: open /dev/ptmx No such file or directory\nrefused: openpty() No such file or directory\nrefused: open /dev/ptmx No such file or directory\nprobe-done\n';
    expect(ptyPool.judge(job(out), {})).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('openpty() No such file or directory') });
  });

  it('is skipped when the attempt did not report', () => {
    expect(ptyPool.judge(job('allocated: open /dev/ptmx\n', 'failure', 1), {}).verdict).toBe('skipped');
    expect(ptyPool.judge(job('', 'failure', 127), {}).verdict).toBe('skipped');
  });
});
