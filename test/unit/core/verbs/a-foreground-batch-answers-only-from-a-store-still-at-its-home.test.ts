/**
 * A foreground batch answers only from a store still at its home. A batch's
 * job can end after its home was moved away: its supervisor records the end
 * in the moved file, through the connection it opened before, and the
 * foreground batch, driving the batch itself, then judges it and records the
 * batch finished there too, through its own. Nobody else will read that
 * record, and the batch answered with it, as if all was well. It now looks
 * once more after driving, before it reads its result (batch.ts, startBatch),
 * so the move is the answer: STORE_UNAVAILABLE, exit 2.
 *
 * Only that look catches it here. The other looks (on every poll, in
 * waitForChange and in the driver) need two looks 250 ms apart to call a
 * home moved, and the batch below finishes a few ms after the move. The
 * driver's look that acts on a single look (when a job's process is gone)
 * is never reached: the job's process is this one, and it is alive. The
 * engine's look at the start of every call came before the move.
 *
 * The set-up, all in this process (test/helpers/supervisor-served-here.ts):
 * `batch` without detach hands its job to the home's shared supervisor, as
 * every batch job is handed, and drives the batch itself. The supervisor is
 * served here by a second engine on the same home, with a connection of its
 * own, as the supervisor's process has. Its clock holds the job's `sleep`
 * until the test ends it, after the move.
 */
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../../../src/core/errors.js';
import {
  aHomeWithItsSupervisorServedHere,
  batchInTheMovedHome,
  cleanupsAfterEach,
  drivingItsRunningJob,
  moveHome,
  within,
} from '../../../helpers/supervisor-served-here.js';

const defer = cleanupsAfterEach();

/** `batch` of one job, `sleep 60` in workspace w, in the foreground (no detach). */
const oneSleepingJob = () => ({ strategy: 'all' as const, jobs: [{ workspace: 'w', command: ['sleep', '60'] }] });

describe('a foreground batch whose home was moved', () => {
  it('says the store moved (STORE_UNAVAILABLE) instead of answering with the batch finished after the move', async () => {
    const { home, engine, sleeping, wake } = await aHomeWithItsSupervisorServedHere(defer);
    const driving = drivingItsRunningJob(engine);
    const batch = engine.batch(oneSleepingJob());
    batch.catch(() => undefined);
    // The batch waits for a change, and its job sleeps in the supervisor.
    const [groupId] = await within(5_000, 'the batch running its job', Promise.all([driving, sleeping]));
    moveHome(home);
    // The job ends only now: its end, and the batch's, are recorded in the moved file.
    wake();
    await expect(batch).rejects.toBeInstanceOf(EngineError);
    await expect(batch).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(batch).rejects.toThrow(`the state store this process opened is no longer at ${home}/state.db`);
    // The batch did finish, in the moved file: the record the batch had to refuse to answer from.
    expect(batchInTheMovedHome(home, groupId)).toMatchObject({ state: 'finished', status: 'success' });
  });

  it('answers as ever when the home is where it was', async () => {
    const { engine, sleeping, wake } = await aHomeWithItsSupervisorServedHere(defer);
    const driving = drivingItsRunningJob(engine);
    const batch = engine.batch(oneSleepingJob());
    batch.catch(() => undefined);
    await within(5_000, 'the batch running its job', Promise.all([driving, sleeping]));
    wake();
    const result = await within(5_000, "the batch's answer", batch);
    expect(result.status).toBe('success');
    expect(result.outcome_summary).toContain('every one of 1 jobs succeeded');
  });
});
