/**
 * The run machine (#15 item 2): a job's terminal state as a pure function of
 * the facts the engine observed about it, in the order it observed them. A
 * foreground run, a detached run's supervisor and doctor's repair all settle
 * a job through here, so however a stop, a wall clock and an exit race, the
 * job ends in exactly one state, by one set of rules:
 *
 *  - the first fact that decides the job decides it; every later fact is
 *    ignored (one terminal state, so one terminal record and one event);
 *  - an exit decides: a stop or a caller's abort seen BEFORE it makes it
 *    cancelled (the stop may have caused the exit), else a wall clock seen
 *    before it makes it timeout, else the kernel's OOM counter makes it
 *    resource_exhausted, else the exit status (0 and no signal: success);
 *    a stop seen AFTER the exit changes nothing (exit-then-cancel keeps the
 *    exit's status);
 *  - a launch that failed is infrastructure_failure (the engine broke);
 *  - a supervisor that died before it recorded an exit decides it once its
 *    process is gone: cancelled when a stop was pending (the stop asked for
 *    exactly that), otherwise infrastructure_failure, never success — no
 *    exit status survived it, so nothing proves the command succeeded.
 *
 * OOM comes only from the kernel's own counter, never from exit 137: a job
 * may exit 137 by itself.
 */
import type { ResultStatus } from '../status.js';
import type { LimitHit } from '../store/records.js';
import { CANCELLED_BY_STOP } from '../store/records.js';

export type RunFact =
  | { kind: 'launched' }
  | { kind: 'launch-failed' }
  /** A stop was recorded for the job (stop --apply, from any process). */
  | { kind: 'stop-requested' }
  /** The job's caller aborted it (an interrupt, an MCP cancellation); `by` names who, for the record. */
  | { kind: 'caller-aborted'; by: string }
  /** The engine's wall-clock timer fired and aborted the job. */
  | { kind: 'wall-clock' }
  /** The provider reported the job's end. `stopped`: the provider itself saw a stop end it. */
  | { kind: 'exited'; exitCode: number | null; signal: string | null; oomKilled: boolean; stopped: boolean }
  /** The process that owned the job (the foreground caller, or a detached run's supervisor) is gone with no terminal record. */
  | { kind: 'owner-died' }
  /** Nothing of the job runs any more (doctor's repair ended what remained, or found nothing). */
  | { kind: 'process-vanished' };

export interface TerminalState {
  status: Exclude<ResultStatus, 'running' | 'policy_denied'>;
  limitHit: LimitHit | null;
  /** The job's own exit status; null when the engine ended it (cancelled, timeout) or none was observed. */
  exitCode: number | null;
  signal: string | null;
  /** Only when cancelled: CANCELLED_BY_STOP or the caller that aborted it. */
  cancelledBy: string | null;
}

/** What the facts so far leave pending: only the first abort of each kind counts. */
interface Pending {
  stop: boolean;
  callerAbort: string | null;
  wallClock: boolean;
  ownerDied: boolean;
}

/** The terminal state the facts decide, or null while the job may still run. Pure and total. */
export function settleRun(facts: readonly RunFact[]): TerminalState | null {
  const pending: Pending = { stop: false, callerAbort: null, wallClock: false, ownerDied: false };
  for (const fact of facts) {
    switch (fact.kind) {
      case 'launched':
        break;
      case 'launch-failed':
        return { status: 'infrastructure_failure', limitHit: null, exitCode: null, signal: null, cancelledBy: null };
      case 'stop-requested':
        pending.stop = true;
        break;
      case 'caller-aborted':
        pending.callerAbort ??= fact.by;
        break;
      case 'wall-clock':
        pending.wallClock = true;
        break;
      case 'exited':
        return afterExit(fact, pending);
      case 'owner-died':
        pending.ownerDied = true;
        break;
      case 'process-vanished':
        // A process that vanished under a live owner is an exit the owner will report; only a dead owner's job is decided here.
        if (pending.ownerDied) {
          return pending.stop
            ? { status: 'cancelled', limitHit: null, exitCode: null, signal: null, cancelledBy: CANCELLED_BY_STOP }
            : { status: 'infrastructure_failure', limitHit: null, exitCode: null, signal: null, cancelledBy: null };
        }
        break;
    }
  }
  return null;
}

function afterExit(exit: Extract<RunFact, { kind: 'exited' }>, pending: Pending): TerminalState {
  // A stop outranks the caller's abort in the record: it is what an operator did (#12 item 22).
  if (exit.stopped || pending.stop || pending.callerAbort !== null) {
    const by = exit.stopped || pending.stop ? CANCELLED_BY_STOP : pending.callerAbort;
    // The exit the provider saw is the job's own (a TERM handler's `exit 3`, or the signal that ended it): kept, as the
    // status alone says it was cancelled. Dropping it recorded every stopped job as exit (none).
    return { status: 'cancelled', limitHit: null, exitCode: exit.exitCode, signal: exit.signal, cancelledBy: by };
  }
  if (pending.wallClock) return { status: 'timeout', limitHit: 'wall_clock', exitCode: null, signal: exit.signal, cancelledBy: null };
  if (exit.oomKilled) return { status: 'resource_exhausted', limitHit: 'memory', exitCode: exit.exitCode, signal: exit.signal, cancelledBy: null };
  if (exit.exitCode === 0 && exit.signal === null) return { status: 'success', limitHit: null, exitCode: 0, signal: null, cancelledBy: null };
  return { status: 'failure', limitHit: null, exitCode: exit.exitCode, signal: exit.signal, cancelledBy: null };
}
