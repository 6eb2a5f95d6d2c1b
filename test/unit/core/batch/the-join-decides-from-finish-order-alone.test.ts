/**
 * The join (#16) is a function of the members' recorded ends alone: listing
 * the members in any order gives the same decision, winners come in finish
 * order (ties by job id), and each strategy's rule holds — race takes the
 * first to end, any the first success (none: any_exhausted), quorum the
 * first K successes, all fails on the first failure, allSettled waits for
 * every job and is success only when all succeeded; the first failure of a
 * failed all or allSettled is named with the winners (the deciding job).
 * Seeded and bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { byFinish, decideJoin, STRATEGIES, type MemberView } from '../../../../src/core/batch/join.js';

const member = fc.record({
  done: fc.boolean(),
  success: fc.boolean(),
  finishedAt: fc.integer({ min: 0, max: 20 }),
});

function views(raw: Array<{ done: boolean; success: boolean; finishedAt: number }>): MemberView[] {
  return raw.map((m, index) => ({
    index,
    name: `job-${index + 1}`,
    jobId: `job-${String(index).padStart(3, '0')}`,
    done: m.done,
    status: m.done ? (m.success ? 'success' : 'failure') : null,
    finishedAt: m.done ? m.finishedAt : null,
  }));
}

const PARAMS = { seed: 16_016, numRuns: 300 };

describe('the join', () => {
  it('decides the same whatever order the members are listed in, winners in finish order', () => {
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 8 }), fc.constantFrom(...STRATEGIES), fc.integer({ min: 1, max: 8 }), (raw, strategy, k) => {
        const members = views(raw);
        const quorum = strategy === 'quorum' ? Math.min(k, members.length) : null;
        const a = decideJoin(strategy, quorum, members);
        const b = decideJoin(strategy, quorum, [...members].reverse());
        expect(b?.status).toEqual(a?.status);
        expect(b?.winners.map((w) => w.index)).toEqual(a?.winners.map((w) => w.index));
        if (a) expect([...a.winners].sort(byFinish)).toEqual(a.winners);
      }),
      PARAMS,
    );
  });

  it("keeps each strategy's rule", () => {
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 8 }), fc.integer({ min: 1, max: 8 }), (raw, k) => {
        const members = views(raw);
        const ended = members.filter((m) => m.done).sort(byFinish);
        const wins = ended.filter((m) => m.status === 'success');
        const pending = members.length - ended.length;

        const race = decideJoin('race', null, members);
        expect(race?.winners[0]?.index).toBe(ended[0]?.index);

        const any = decideJoin('any', null, members);
        if (wins.length > 0) expect(any).toMatchObject({ status: 'success', winners: [wins[0]] });
        else expect(any?.status ?? null).toBe(pending === 0 ? 'any_exhausted' : null);

        const q = Math.min(k, members.length);
        const quorum = decideJoin('quorum', q, members);
        if (wins.length >= q) expect(quorum).toMatchObject({ status: 'success', winners: wins.slice(0, q) });
        else if (wins.length + pending < q) expect(quorum?.status).toBe('failure');
        else expect(quorum).toBeNull();

        const all = decideJoin('all', null, members);
        const firstFailure = ended.find((m) => m.status !== 'success');
        // The failure that decided is recorded among the winners, so the result marks it the deciding job.
        if (firstFailure) expect(all).toMatchObject({ status: 'failure', decider: firstFailure, winners: [firstFailure] });
        else expect(all?.status ?? null).toBe(pending === 0 ? 'success' : null);

        const settled = decideJoin('allSettled', null, members);
        if (pending > 0) expect(settled).toBeNull();
        else {
          expect(settled?.status).toBe(firstFailure ? 'failure' : 'success');
          const named = firstFailure ? [...wins, firstFailure].sort(byFinish) : wins;
          expect(settled?.winners.map((w) => w.index)).toEqual(named.map((w) => w.index));
        }
      }),
      PARAMS,
    );
  });
});
