/**
 * inherited-fds: a job must see exactly descriptors 0, 1 and 2. Any other
 * descriptor is an escape whatever it is (a directory is the worst: it walks
 * to the host's /), and the evidence names fds and kinds, never content.
 */
import { describe, expect, it } from 'vitest';
import { inheritedFds } from '../../../../src/core/probe/scenarios-descriptors.js';
import { job } from './facts.js';

describe('inherited-fds', () => {
  it('is contained when the job lists only 0, 1 and 2, and says what the engine itself had leaked', () => {
    const verdict = inheritedFds.judge(job('fds: 0 1 2 3\nprobe-done\n'), { leakedIntoEngine: [200, 251] });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('200, 251') });
  });

  it('escapes on a leaked pipe alone', () => {
    const verdict = inheritedFds.judge(job('inherited: fd 251 fifo\nfds: 0 1 2 3 251\nprobe-done\n'), { leakedIntoEngine: [] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('fd 251 fifo') });
  });

  it('escapes on a directory and says when it reaches host-only paths', () => {
    const verdict = inheritedFds.judge(job('inherited: fd 200 directory host-only-entries=17\nprobe-done\n'), { leakedIntoEngine: [200] });
    expect(verdict.verdict).toBe('escaped');
    expect(verdict.evidence).toContain('reaches host-only paths');
  });

  it('is skipped when the listing never reported', () => {
    expect(inheritedFds.judge(job('Traceback …\n', 'failure', 1), { leakedIntoEngine: [] }).verdict).toBe('skipped');
  });
});
