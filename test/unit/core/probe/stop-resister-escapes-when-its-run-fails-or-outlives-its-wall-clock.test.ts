/**
 * stop-resister: contained when the side workspace's run, whose job froze
 * whatever came to end it, still returned a result soon after its 3 s wall
 * clock; escaped when the run failed instead (the docker provider once gave
 * up on its engine and lost the workspace) or came back past the wall clock
 * by more than 30 s; skipped when the attempt could not be made.
 */
import { describe, expect, it } from 'vitest';
import { stopResister } from '../../../../src/core/probe/scenarios-budgets.js';
import { job } from './facts.js';

const resisted = { output: 'probe-resisting\n', exitCode: null };

describe('stop-resister', () => {
  it('is contained when the run ended soon after the wall clock', () => {
    expect(stopResister.judge(job('probe-done\n'), { outcome: resisted, ranMs: 10_000 }).verdict).toBe('contained');
  });

  it('escapes when the run failed instead of ending as a timeout', () => {
    const judged = stopResister.judge(job('probe-done\n'), { outcome: { refused: 'docker workspace w is lost', at: 'run' }, ranMs: 25_000 });
    expect(judged.verdict).toBe('escaped');
    expect(judged.evidence).toContain('docker workspace w is lost');
  });

  it('escapes when the run came back long past the wall clock', () => {
    expect(stopResister.judge(job('probe-done\n'), { outcome: resisted, ranMs: 40_000 }).verdict).toBe('escaped');
  });

  it('is skipped when the workspace could not be made or python3 is missing', () => {
    expect(stopResister.judge(job('probe-done\n'), { outcome: { refused: 'POLICY_DENIED', at: 'create' }, ranMs: 100 }).verdict).toBe('skipped');
    expect(stopResister.judge(job('probe-done\n'), { outcome: { output: 'python3: not found\n', exitCode: 127 }, ranMs: 100 }).verdict).toBe('skipped');
  });
});
