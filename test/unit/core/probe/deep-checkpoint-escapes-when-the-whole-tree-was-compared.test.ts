/**
 * deep-checkpoint: a job nests 1,000 directories of 250-byte names and the
 * host checkpoints the workspace, whose comparison handles each path whole
 * (about 125 MB of path text, growing with depth² × name length). A
 * checkpoint that went through compared what no budget bounds (a deeper tree
 * held one for 12 minutes), and one that failed as an infrastructure fault
 * is an escape; a refusal as policy holds.
 */
import { describe, expect, it } from 'vitest';
import { deepCheckpoint } from '../../../../src/core/probe/scenarios-host-side.js';
import { job } from './facts.js';

describe('deep-checkpoint', () => {
  it('is contained when the checkpoint is refused as policy', () => {
    const verdict = deepCheckpoint.judge(job('probe-done\n'), {
      outcome: { ok: false, refused: 'POLICY_DENIED', category: 'policy_denied', digestedBytes: null },
    });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('POLICY_DENIED') });
  });

  it('escapes when the checkpoint compared the whole tree', () => {
    expect(deepCheckpoint.judge(job('probe-done\n'), { outcome: { ok: true, digestedBytes: 0 } })).toMatchObject({
      verdict: 'escaped',
      evidence: expect.stringContaining('depth²'),
    });
  });

  it('escapes when the checkpoint failed as an infrastructure fault', () => {
    const verdict = deepCheckpoint.judge(job('probe-done\n'), {
      outcome: { ok: false, refused: 'PROVIDER_FAILURE', category: 'infrastructure_failure', digestedBytes: null },
    });
    expect(verdict.verdict).toBe('escaped');
  });

  it('is skipped when the job never made the tree', () => {
    expect(deepCheckpoint.judge(job('OSError\n', 'failure', 1), { outcome: { ok: true, digestedBytes: 0 } }).verdict).toBe('skipped');
  });
});
