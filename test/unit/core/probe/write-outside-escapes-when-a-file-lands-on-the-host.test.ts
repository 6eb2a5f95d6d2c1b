/**
 * write-outside is judged on the host: a write that succeeded inside (the
 * sandbox's private /tmp) is fine; a file that exists at a host path is an
 * escape, named by its path.
 */
import { describe, expect, it } from 'vitest';
import { writeOutside } from '../../../../src/core/probe/scenarios-filesystem.js';
import { job } from './facts.js';

const output = 'refused: /etc/x Read-only file system\nwrote: /tmp/x\nprobe-done\n';

describe('write-outside', () => {
  it('is contained when no host path holds the file, even if the private /tmp took it', () => {
    const verdict = writeOutside.judge(job(output), { landed: [], checked: 6 });
    expect(verdict.verdict).toBe('contained');
    expect(verdict.evidence).toContain('1 writes refused');
  });

  it('escapes when a host path holds the file, and names the path', () => {
    const verdict = writeOutside.judge(job(output), { landed: ['/etc/hsprobe-abc'], checked: 6 });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('/etc/hsprobe-abc') });
  });
});
