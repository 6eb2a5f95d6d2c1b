/**
 * A batch wait answers only from a store still at its home. A batch's job
 * can end after its home was moved away: its supervisor records the end in
 * the moved file, through the connection it opened before, and the batch
 * wait driving the batch then judges it and records the batch finished
 * there too, through its own. Nobody else will read that record, and the
 * batch wait answered with it. It now looks again after each wait or drive,
 * before it reads the batch (batch.ts, waitForBatch), so the move is the
 * answer: STORE_UNAVAILABLE, exit 2.
 *
 * Only that look catches it here. The other looks (on every poll, in
 * waitForChange and in the driver) need two looks 250 ms apart to call a
 * home moved, and the batch below finishes a few ms after the move. The
 * driver's look that acts on a single look (when a job's process is gone)
 * is never reached: the job's process is this one, and it is alive.
 *
 * The set-up, all in this process: the batch is recorded as `batch --detach`
 * records it, with no driver yet, so the batch wait adopts it and drives it
 * (the detached driver's own way in). The batch wait hands its job to the
 * home's shared supervisor, as every batch job is handed. The supervisor is
 * served here by a second engine on the same home, with a connection of its
 * own, as the supervisor's process has. Its clock holds the job's `sleep`
 * until the test ends it, after the move (test/helpers/supervisor-served-here.ts).
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
} from '../../../helpers/supervisor-served-here.js';

const GROUP = 'bg-0123456789ab';

const defer = cleanupsAfterEach();

/** A home with workspace w, its supervisor served here, and a batch of one job, `sleep 60` in w, recorded with no driver. */
async function batchOfOneSleepingJob(): Promise<{ home: string; engine: Engine; sleeping: Promise<void>; wake: () => void }> {
  const { home, engine, sleeping, wake } = await aHomeWithItsSupervisorServedHere(defer);
  // As `batch --detach` records a batch, with no driver yet: the batch wait adopts it.
  recordABatchWithNoDriver(home, GROUP, ['sleep', '60']);
  return { home, engine, sleeping, wake };
}

describe('a batch wait whose home was moved', () => {
  it('says the store moved (STORE_UNAVAILABLE) instead of answering with the batch finished after the move', async () => {
    const { home, engine, sleeping, wake } = await batchOfOneSleepingJob();
    const driving = drivingItsRunningJob(engine, GROUP);
    const waited = engine.batchWait({ groupId: GROUP, timeoutSeconds: 20 });
    waited.catch(() => undefined);
    // The batch wait waits for a change, and the job sleeps in the supervisor.
    await Promise.all([driving, sleeping]);
    moveHome(home);
    // The job ends only now: its end, and the batch's, are recorded in the moved file.
    wake();
    await expect(waited).rejects.toBeInstanceOf(EngineError);
    await expect(waited).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(waited).rejects.toThrow(`the state store this process opened is no longer at ${home}/state.db`);
    // The batch did finish, in the moved file: the record the wait had to refuse to answer from.
    expect(batchInTheMovedHome(home, GROUP)).toMatchObject({ state: 'finished', status: 'success' });
  });

  it('answers as ever when the home is where it was', async () => {
    const { engine, sleeping, wake } = await batchOfOneSleepingJob();
    const driving = drivingItsRunningJob(engine, GROUP);
    const waited = engine.batchWait({ groupId: GROUP, timeoutSeconds: 20 });
    waited.catch(() => undefined);
    await Promise.all([driving, sleeping]);
    wake();
    const result = await waited;
    expect(result.status).toBe('success');
    expect(result.outcome_summary).toContain('every one of 1 jobs succeeded');
  });
});
