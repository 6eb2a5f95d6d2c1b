/**
 * read-host-file looks for the canaries' random content in what the job
 * printed; the path alone (which the job is given) proves nothing.
 */
import { describe, expect, it } from 'vitest';
import { readHostFile } from '../../../../src/core/probe/scenarios-filesystem.js';
import { job } from './facts.js';

describe('read-host-file', () => {
  it('is contained when every read was refused and no content shows', () => {
    const verdict = readHostFile.judge(job('refused: /tmp/d/canary-1 No such file or directory\nprobe-done\n'), { contents: ['hsprobe-canary-s3cr3t'] });
    expect(verdict.verdict).toBe('contained');
  });

  it('escapes when a canary content is printed, naming the path it came through', () => {
    const verdict = readHostFile.judge(job('read: /proc/1/root/tmp/d/canary-1 hsprobe-canary-s3cr3t\nprobe-done\n'), { contents: ['hsprobe-canary-s3cr3t'] });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('/proc/1/root/tmp/d/canary-1') });
  });
});
