/** The assertions of "each strategy decides its join", shared by the fake and native test files. */
import { expect, it } from 'vitest';
import type { StrategyCases } from './batch.js';

export function strategySuite(cases: () => StrategyCases): void {
  it('race: the first job to end decides, success or not, and the other is cancelled', () => {
    const { won, lost, wonStatuses, lostStatuses } = cases().race();
    expect(won.code, won.stderr).toBe(0);
    expect(wonStatuses).toEqual({ slow: 'cancelled', fast: 'success' });
    expect(lost.code, lost.stderr).toBe(6);
    expect(lostStatuses).toEqual({ slow: 'cancelled', fast: 'failure' });
  });

  it('any: the first success decides; with no success the batch is any_exhausted (exit 6)', () => {
    const { found, exhausted, foundStatuses } = cases().any();
    expect(found.code, found.stderr).toBe(0);
    expect(foundStatuses.good).toBe('success');
    expect(foundStatuses.bad).toBe('failure');
    expect(foundStatuses.late).toBe('cancelled');
    expect(exhausted.code, exhausted.stderr).toBe(6);
    expect(exhausted.pkg!.status).toBe('any_exhausted');
  });

  it('quorum: K successes decide and the losers are cancelled, queued ones never started', () => {
    const { run, statuses } = cases().quorum();
    expect(run.code, run.stderr).toBe(0);
    expect(statuses).toEqual({ first: 'success', slow: 'cancelled', third: 'success', never: 'cancelled' });
    expect(run.stdout).toContain('never: cancelled');
    expect(run.stdout).toContain('cancelled before it started');
  });

  it('all: the first failure decides and the rest are cancelled', () => {
    const { run, statuses } = cases().all();
    expect(run.code, run.stderr).toBe(6);
    expect(run.pkg!.status).toBe('failure');
    expect(statuses).toEqual({ bad: 'failure', slow: 'cancelled', queued: 'cancelled' });
  });

  it('allSettled: every job runs and every failure is reported, none disguised', () => {
    const { run, statuses } = cases().allSettled();
    expect(run.code, run.stderr).toBe(6);
    expect(run.pkg!.status).toBe('failure');
    expect(statuses).toEqual({ one: 'failure', two: 'success', three: 'failure' });
    expect(run.pkg!.outcome_summary).toContain('2 of 3 jobs did not succeed');
    // The strategy is named once, in the parentheses, not again at the join's summary.
    expect(run.pkg!.outcome_summary).toMatch(/\(allSettled\): 2 of 3 jobs did not succeed/);
  });
}
