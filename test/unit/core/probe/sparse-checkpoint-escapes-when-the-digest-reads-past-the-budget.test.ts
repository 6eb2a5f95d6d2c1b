/**
 * sparse-checkpoint: a job makes a sparse file eight times its storage budget
 * and the host checkpoints the workspace, which digests every byte a file
 * reads as. A checkpoint that read more than the budget (a larger sparse file
 * would hold the engine for hours), or that failed as an infrastructure fault,
 * is an escape; a refusal as policy, or a digest within the budget, holds.
 */
import { describe, expect, it } from 'vitest';
import { sparseCheckpoint } from '../../../../src/core/probe/scenarios-host-side.js';
import { job } from './facts.js';

const CAP = 32 * 1024 * 1024;

describe('sparse-checkpoint', () => {
  it('is contained when the checkpoint is refused as policy', () => {
    const verdict = sparseCheckpoint.judge(job('probe-done\n'), {
      capBytes: CAP,
      outcome: { ok: false, refused: 'POLICY_DENIED', category: 'policy_denied', digestedBytes: null },
    });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('POLICY_DENIED') });
  });

  it('escapes when the checkpoint digested past the storage budget', () => {
    const verdict = sparseCheckpoint.judge(job('probe-done\n'), { capBytes: CAP, outcome: { ok: true, digestedBytes: 8 * CAP } });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('256 MiB') });
  });

  it('is contained when a checkpoint read no more than the budget', () => {
    expect(sparseCheckpoint.judge(job('probe-done\n'), { capBytes: CAP, outcome: { ok: true, digestedBytes: CAP } }).verdict).toBe('contained');
  });

  it('escapes when the checkpoint failed as an infrastructure fault', () => {
    const verdict = sparseCheckpoint.judge(job('probe-done\n'), {
      capBytes: CAP,
      outcome: { ok: false, refused: 'PROVIDER_FAILURE', category: 'infrastructure_failure', digestedBytes: null },
    });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('exit 7') });
  });

  it('is skipped when the job never made the file', () => {
    expect(sparseCheckpoint.judge(job('OSError\n', 'failure', 1), { capBytes: CAP, outcome: { ok: true, digestedBytes: 0 } }).verdict).toBe('skipped');
  });
});
