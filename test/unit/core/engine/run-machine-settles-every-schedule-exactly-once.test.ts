/**
 * The run machine (#15 item 2), replayed over seeded random schedules of the
 * facts a job can meet (launch, stop request, caller abort, wall clock, exit
 * with or without the OOM counter, its owner's death, its process vanishing):
 * one terminal state per schedule, written once however the facts race;
 * cancel-then-exit is cancelled, exit-then-cancel keeps the exit's status; a
 * dead owner with a stop pending settles cancelled, without one
 * infrastructure_failure, never success.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { settleRun, type RunFact, type TerminalState } from '../../../../src/core/run/run-machine.js';
import { orphanStatus } from '../../../../src/core/repair/plan-repairs.js';

const SEEDS = [1, 7, 42, 1234, 987_654];
const RUNS = 250;

const exited = fc.record({
  kind: fc.constant('exited' as const),
  exitCode: fc.option(fc.integer({ min: 0, max: 255 }), { nil: null }),
  signal: fc.constantFrom(null, 'SIGKILL', 'SIGTERM'),
  oomKilled: fc.boolean(),
  stopped: fc.boolean(),
});
const fact: fc.Arbitrary<RunFact> = fc.oneof(
  fc.constant({ kind: 'stop-requested' as const }),
  fc.constant({ kind: 'caller-aborted' as const, by: 'the caller' }),
  fc.constant({ kind: 'wall-clock' as const }),
  fc.constant({ kind: 'owner-died' as const }),
  fc.constant({ kind: 'process-vanished' as const }),
  fc.constant({ kind: 'launch-failed' as const }),
  exited,
);
/** A launch, then facts in any order; a schedule ends with an exit or with its owner dead and its process gone. */
const schedule = fc
  .tuple(fc.array(fact, { maxLength: 10 }), fc.oneof(exited, fc.constant<RunFact[]>([{ kind: 'owner-died' }, { kind: 'process-vanished' }])))
  .map(([middle, end]) => [{ kind: 'launched' } as RunFact, ...middle, ...(Array.isArray(end) ? end : [end])]);

/** Replays a schedule one fact at a time, as a recorder that writes the terminal record (and its event) when the state first becomes terminal. */
function replay(facts: RunFact[]): { writes: TerminalState[]; decidedAt: number } {
  const writes: TerminalState[] = [];
  let decidedAt = -1;
  for (let i = 1; i <= facts.length; i++) {
    const state = settleRun(facts.slice(0, i));
    if (state !== null && writes.length === 0) {
      writes.push(state);
      decidedAt = i - 1;
    }
    // Once decided, every longer prefix gives the same state: a late fact never rewrites it.
    if (writes.length > 0) expect(state).toEqual(writes[0]);
  }
  return { writes, decidedAt };
}

const exitStatus = (e: Extract<RunFact, { kind: 'exited' }>) =>
  e.oomKilled ? 'resource_exhausted' : e.exitCode === 0 && e.signal === null ? 'success' : 'failure';

describe('the run machine', () => {
  for (const seed of SEEDS) {
    it(`settles every schedule in exactly one terminal state, written once (seed ${seed})`, () => {
      fc.assert(
        fc.property(schedule, (facts) => {
          const { writes } = replay(facts);
          expect(writes).toHaveLength(1);
        }),
        { seed, numRuns: RUNS },
      );
    });

    it(`reads cancel-then-exit as cancelled and exit-then-cancel as the exit's status (seed ${seed})`, () => {
      fc.assert(
        fc.property(schedule, (facts) => {
          const { writes, decidedAt } = replay(facts);
          const decider = facts[decidedAt]!;
          if (decider.kind !== 'exited') return;
          const before = facts.slice(0, decidedAt);
          const cancelledBefore = decider.stopped || before.some((f) => f.kind === 'stop-requested' || f.kind === 'caller-aborted');
          if (cancelledBefore) expect(writes[0]!.status).toBe('cancelled');
          else if (before.some((f) => f.kind === 'wall-clock')) expect(writes[0]!.status).toBe('timeout');
          else expect(writes[0]!.status).toBe(exitStatus(decider));
        }),
        { seed, numRuns: RUNS },
      );
    });

    it(`settles a dead owner's job as cancelled with a stop pending, else infrastructure_failure, never success (seed ${seed})`, () => {
      fc.assert(
        fc.property(schedule, (facts) => {
          const { writes, decidedAt } = replay(facts);
          if (facts[decidedAt]!.kind !== 'process-vanished') return;
          const stopPending = facts.slice(0, decidedAt).some((f) => f.kind === 'stop-requested');
          expect(writes[0]!.status).toBe(stopPending ? 'cancelled' : 'infrastructure_failure');
          expect(writes[0]!.status).not.toBe('success');
          expect(orphanStatus({ stopRequested: stopPending })).toBe(writes[0]!.status);
        }),
        { seed, numRuns: RUNS },
      );
    });
  }

  it('names the stop over the caller when both came before the exit, and keeps a stop after the exit out of the record', () => {
    const exit: RunFact = { kind: 'exited', exitCode: 0, signal: null, oomKilled: false, stopped: false };
    expect(settleRun([{ kind: 'launched' }, { kind: 'caller-aborted', by: 'the MCP client' }, { kind: 'stop-requested' }, exit])?.cancelledBy).toBe('stop');
    expect(settleRun([{ kind: 'launched' }, exit, { kind: 'stop-requested' }])).toMatchObject({ status: 'success', cancelledBy: null });
    expect(settleRun([{ kind: 'launched' }, { kind: 'process-vanished' }])).toBeNull();
  });
});
