/**
 * snapshot-data (#14): a job that finds the token living only in its
 * workspace's checkpoint, or the one in a fork, has reached snapshot data
 * that is not its own: escaped, naming the paths. Contained means it
 * searched and found neither; a job that did not report is skipped; a
 * provider without snapshots skips the scenario before running it.
 */
import { describe, expect, it } from 'vitest';
import { whyNotApplicable } from '../../../../src/core/probe/run-probe.js';
import { snapshotData } from '../../../../src/core/probe/scenarios-snapshots.js';
import type { ProviderCapabilities } from '../../../../src/core/provider.js';
import { job } from './facts.js';

const planted = { planted: 'snapshot-canary.txt in checkpoint cp-1, fork-canary.txt in fork ws-2' };

describe('snapshot-data', () => {
  it("escapes when the job reads a checkpoint's or a fork's canary, naming where", () => {
    const out =
      'layers: 3\nfound: /mnt/img/ws-1/layers/L0/snapshot-canary.txt checkpoint\nsearched: 20 files in 9 directories ( 0 unreadable); 1 hits\nprobe-done\n';
    const verdict = snapshotData.judge(job(out), planted);
    expect(verdict.verdict).toBe('escaped');
    expect(verdict.evidence).toContain('/mnt/img/ws-1/layers/L0/snapshot-canary.txt checkpoint');
    expect(verdict.lines).toEqual(['found: /mnt/img/ws-1/layers/L0/snapshot-canary.txt checkpoint']);
  });

  it('is contained when the search found neither canary, and says how far it looked', () => {
    const out = 'layers: 3\nsearched: 17 files in 18 directories ( 0 unreadable); 0 hits\nprobe-done\n';
    expect(snapshotData.judge(job(out), planted)).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('17 files in 18 directories') });
  });

  it('is skipped when the search did not finish, and on a provider without snapshots', () => {
    expect(snapshotData.judge(job('layers: 3\n', 'timeout', null), planted).verdict).toBe('skipped');
    const caps = { provider: 'docker', enforces: { filesystem: true }, reasons: {}, layers: [], features: [] } as unknown as ProviderCapabilities;
    expect(whyNotApplicable(snapshotData, 'docker', caps)).toBe('the docker provider does not offer snapshots, which this scenario tests');
  });
});
