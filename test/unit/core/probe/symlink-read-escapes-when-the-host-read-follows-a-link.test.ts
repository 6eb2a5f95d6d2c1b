/**
 * symlink-read: the job plants links to host files; any host-side read that
 * returns bytes instead of refusing is an escape. The evidence reports only
 * the size, never what was read.
 */
import { describe, expect, it } from 'vitest';
import { symlinkRead } from '../../../../src/core/probe/scenarios-filesystem.js';
import { job } from './facts.js';

describe('symlink-read', () => {
  it('is contained when every read through a planted link is refused', () => {
    const verdict = symlinkRead.judge(job('probe-done\n'), {
      reads: [
        { path: 'leak', outcome: 'BAD_PATH', leaked: false },
        { path: 'etcdir/shadow', outcome: 'BAD_PATH', leaked: false },
      ],
    });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('BAD_PATH') });
  });

  it('escapes when one read returned bytes, reporting the size only', () => {
    const verdict = symlinkRead.judge(job('probe-done\n'), { reads: [{ path: 'leak', outcome: '1234 bytes returned', leaked: true }] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('leak (1234 bytes returned)') });
  });

  it('is skipped when the links could not be planted', () => {
    expect(symlinkRead.judge(job('ln: failed\n', 'failure', 1), { reads: [] }).verdict).toBe('skipped');
  });
});
