/**
 * sparse-export: a job makes a 3 GiB sparse file in a 32 MiB workspace and
 * the host exports it. More than the cap landing on the host (apparent or
 * allocated), or the export failing as an infrastructure fault (exit 7), is
 * an escape; a refusal as policy, or a copy that stayed under the cap, holds.
 */
import { describe, expect, it } from 'vitest';
import { sparseExport } from '../../../../src/core/probe/scenarios-host-side.js';
import { job } from './facts.js';

const CAP = 32 * 1024 * 1024;
const nothing = { apparentBytes: 0, allocatedBytes: 0 };

describe('sparse-export', () => {
  it('is contained when the export is refused as policy and nothing lands', () => {
    const verdict = sparseExport.judge(job('probe-done\n'), {
      capBytes: CAP,
      outcome: { ok: false, refused: 'POLICY_DENIED', category: 'policy_denied' },
      landed: nothing,
    });
    expect(verdict).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('POLICY_DENIED') });
  });

  it('escapes when the whole apparent size was written densely to the host', () => {
    const landed = { apparentBytes: 3 * 1024 ** 3, allocatedBytes: 3 * 1024 ** 3 };
    expect(sparseExport.judge(job('probe-done\n'), { capBytes: CAP, outcome: { ok: true }, landed }).verdict).toBe('escaped');
  });

  it('escapes when a file larger than the cap landed even though it is sparse', () => {
    const landed = { apparentBytes: 3 * 1024 ** 3, allocatedBytes: 8192 };
    expect(sparseExport.judge(job('probe-done\n'), { capBytes: CAP, outcome: { ok: true }, landed }).verdict).toBe('escaped');
  });

  it('escapes when the export failed as an infrastructure fault', () => {
    const verdict = sparseExport.judge(job('probe-done\n'), {
      capBytes: CAP,
      outcome: { ok: false, refused: 'PROVIDER_FAILURE', category: 'infrastructure_failure' },
      landed: nothing,
    });
    expect(verdict).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('exit 7') });
  });

  it('is skipped when the job never made the file', () => {
    expect(sparseExport.judge(job('OSError\n', 'failure', 1), { capBytes: CAP, outcome: { ok: true }, landed: nothing }).verdict).toBe('skipped');
  });
});
