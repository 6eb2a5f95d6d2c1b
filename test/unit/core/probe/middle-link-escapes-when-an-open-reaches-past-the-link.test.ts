/**
 * middle-link: the job plants `a -> <host dir>` and the host reads through
 * it. Any byte returned escapes, and so does an open that merely reached the
 * host object (seen as the FIFO behind the link being opened): the open
 * itself has effects before any later check can refuse it.
 */
import { describe, expect, it } from 'vitest';
import { middleLink } from '../../../../src/core/probe/scenarios-host-side.js';
import { job } from './facts.js';

const refused = [
  { path: 'hsprobe-mid/canary', outcome: 'BAD_PATH', bytes: null },
  { path: 'hsprobe-mid/fifo', outcome: 'BAD_PATH', bytes: null },
];

describe('middle-link', () => {
  it('is contained when every read is refused and the FIFO was never opened', () => {
    expect(middleLink.judge(job('probe-done\n'), { reads: refused, fifoOpened: false })).toMatchObject({
      verdict: 'contained',
      evidence: expect.stringContaining('BAD_PATH'),
    });
  });

  it('escapes when a read returned bytes of the canary', () => {
    const reads = [{ path: 'hsprobe-mid/canary', outcome: 'read', bytes: 40 }];
    expect(middleLink.judge(job('probe-done\n'), { reads, fifoOpened: false })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('40 bytes'),
    });
  });

  it('escapes when the reads were refused but the FIFO behind the link was opened', () => {
    expect(middleLink.judge(job('probe-done\n'), { reads: refused, fifoOpened: true }).verdict).toBe('escaped');
  });

  it('is skipped when the FIFO watcher could not be set up', () => {
    expect(middleLink.judge(job('probe-done\n'), { reads: refused, fifoOpened: null }).verdict).toBe('skipped');
  });
});
