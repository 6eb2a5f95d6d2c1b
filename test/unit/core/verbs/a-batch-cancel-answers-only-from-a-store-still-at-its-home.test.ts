/**
 * A batch cancel answers only from a store still at its home. A cancel of a
 * batch nobody drives drives the cancellation itself: it stops the running
 * job and waits for the job's end before it records the batch finished. The
 * home can be moved away in between: the job's supervisor records the end in
 * the moved file, through the connection it opened before, and the cancel
 * records the batch finished there too, through its own. Nobody else will
 * read that record, and the cancel answered with it (cancelled, as if all was
 * well). It now looks at the top of its loop, before each read it may answer
 * from (batch.ts, cancelBatch), so the move is the answer: STORE_UNAVAILABLE,
 * exit 2.
 *
 * Only that look catches it here. The look after each wait or drive needs
 * two looks 250 ms apart to call a home moved, and the cancel's drive
 * finishes a few ms after the move. The driver's look that acts on a single
 * look (when a job's process is gone) is never reached: the job's process is
 * this one, and it is alive. The engine's look at the start of every call
 * came before the move.
 *
 * The set-up, all in this process (test/helpers/supervisor-served-here.ts):
 * the batch is recorded with no driver; a batch wait adopts it, hands its job
 * to the home's shared supervisor (served here by a second engine on the same
 * home, with a connection of its own, as the supervisor's process has) and is
 * then interrupted, which gives the seat up with the job running. The cancel
 * takes the free seat. The supervisor's clock holds the job's `sleep` through
 * the stop, until the test ends it, after the move.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../../../src/core/engine.js';
import { EngineError } from '../../../../src/core/errors.js';
import {
  aHomeWithItsSupervisorServedHere,
  batchInTheMovedHome,
  cleanupsAfterEach,
  drivingItsRunningJob,
  moveHome,
  recordABatchWithNoDriver,
  within,
  type SupervisorServedHere,
} from '../../../helpers/supervisor-served-here.js';

const GROUP = 'bg-0123456789ab';

const defer = cleanupsAfterEach();

/**
 * A home with its supervisor served here (a stop holds the job's sleep until `wake`), and a batch of one job,
 * `sleep 60` in w, running with nobody driving: a batch wait launched it and was interrupted.
 */
async function batchOfOneSleepingJobLeftUndriven(): Promise<{ home: string; engine: Engine } & SupervisorServedHere> {
  const served = await aHomeWithItsSupervisorServedHere(defer, { holdThroughStop: true });
  const { home, engine, sleeping } = served;
  recordABatchWithNoDriver(home, GROUP, ['sleep', '60']);
  const interrupt = new AbortController();
  const driving = drivingItsRunningJob(engine, GROUP);
  const waited = engine.batchWait({ groupId: GROUP, timeoutSeconds: 20, signal: interrupt.signal });
  waited.catch(() => undefined);
  await within(5_000, 'the batch wait running the job', Promise.all([driving, sleeping]));
  interrupt.abort();
  const left = await within(5_000, "the interrupted batch wait's answer", waited);
  expect(left.outcome_summary).toContain('the wait was interrupted; the batch runs on');
  return served;
}

describe('a batch cancel whose home was moved', () => {
  it('says the store moved (STORE_UNAVAILABLE) instead of answering with the batch it finished after the move', async () => {
    const { home, engine, stopping, wake } = await batchOfOneSleepingJobLeftUndriven();
    const cancelled = engine.batchCancel({ groupId: GROUP });
    cancelled.catch(() => undefined);
    // The cancel drives: it has decided the batch cancelled and its stop has reached the job, which sleeps on.
    await within(5_000, "the cancel's stop reaching the job", stopping);
    moveHome(home);
    // The job ends only now: its end, and the batch's, are recorded in the moved file.
    wake();
    await expect(cancelled).rejects.toBeInstanceOf(EngineError);
    await expect(cancelled).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(cancelled).rejects.toThrow(`the state store this process opened is no longer at ${home}/state.db`);
    // The batch did finish, in the moved file: the record the cancel had to refuse to answer from.
    expect(batchInTheMovedHome(home, GROUP)).toMatchObject({ state: 'finished', status: 'cancelled' });
  });

  it('answers as ever when the home is where it was', async () => {
    const { engine, stopping, wake } = await batchOfOneSleepingJobLeftUndriven();
    const cancelled = engine.batchCancel({ groupId: GROUP });
    cancelled.catch(() => undefined);
    await within(5_000, "the cancel's stop reaching the job", stopping);
    wake();
    const result = await within(5_000, "the cancel's answer", cancelled);
    expect(result.status).toBe('cancelled');
    expect(result.outcome_summary).toContain('cancelled by batch cancel');
  });
});
