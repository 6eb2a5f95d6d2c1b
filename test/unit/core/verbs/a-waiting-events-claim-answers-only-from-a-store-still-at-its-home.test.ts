/**
 * A waiting events claim answers only from a store still at its home. An
 * event can be recorded after its home was moved away: the process running
 * the job records the job's end, and with it the event, in the moved file,
 * through the connection it opened before. A claim waiting on that home
 * woke to the change and took the event from the moved file. It leased an
 * event that no ack could ever reach, and answered as if all was well. It now
 * looks once more after each wait, before it claims (events-claim.ts,
 * claimDeliveries), so the move is the answer: STORE_UNAVAILABLE, exit 2.
 *
 * Only that look catches it here. The look on every poll (waitForChange)
 * needs two looks 250 ms apart to call a home moved, and the event is
 * recorded, and the claim wakes to it, a few ms after the move.
 *
 * The set-up, all in this process: one engine claims and another runs the
 * job, each with its own connection to the home, as two processes have. So
 * the job's end reaches the claim as another process's commit does, by the
 * store's change counter.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EngineError } from '../../../../src/core/errors.js';
import type { ResultPackage } from '../../../../src/core/result/result-package.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { engineWithProviders, waitUntilRunning } from '../../../helpers/engine.js';
import { eventsOf, subscriptionIdOf } from '../../../helpers/events.js';

let cleanup: (() => Promise<void>) | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup?.();
  cleanup = null;
});

/**
 * A home with workspace w, a subscription to its jobs' events, a job (`block`) running in it under a second engine
 * until `end`, and a claim of the subscription that has found nothing and waits for a change.
 */
async function aClaimWaitingForARunningJob(): Promise<{ home: string; jobId: string; claimed: Promise<ResultPackage>; end: () => Promise<void> }> {
  const home = mkdtempSync(join(tmpdir(), 'hs-claim-moved-'));
  const claimer = engineWithProviders(home, 'fake');
  const runner = engineWithProviders(home, 'fake');
  const stop = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  cleanup = async () => {
    // The job ends first: ending later, it would save the fake's state again in a home already removed.
    stop.abort();
    await running;
    claimer.close();
    runner.close();
    if (existsSync(`${home}-moved`)) {
      // The fake provider saved its state at the old path when the job ended: what is there is only that.
      rmSync(home, { recursive: true, force: true });
      renameSync(`${home}-moved`, home);
    }
    rmSync(home, { recursive: true, force: true });
  };
  await claimer.create({ workspaceId: 'w' });
  const subscriptionId = subscriptionIdOf(await claimer.subscribeEvents({ workspaceId: 'w', name: 'watcher' }));
  running = runner.run({ workspaceId: 'w', argv: ['block'], signal: stop.signal }).catch(() => undefined);
  await waitUntilRunning(runner, 'w');
  const jobId = /^job (\S+) is running/.exec((await runner.stop({ workspaceId: 'w' })).outcome_summary)![1]!;
  // The claim's wait for a change subscribes to its engine's events (waitForChange): it has claimed once and found nothing.
  const waiting = vi.spyOn(claimer.events, 'subscribe');
  const claimed = claimer.claimEvents({ subscriptionId, waitSeconds: 20 });
  claimed.catch(() => undefined);
  await vi.waitFor(() => expect(waiting).toHaveBeenCalled(), { timeout: 10_000, interval: 2 });
  return {
    home,
    jobId,
    claimed,
    end: async () => {
      stop.abort();
      await running;
    },
  };
}

describe('a waiting events claim whose home was moved', () => {
  it('says the store moved (STORE_UNAVAILABLE) instead of claiming an event recorded after the move', async () => {
    const { home, jobId, claimed, end } = await aClaimWaitingForARunningJob();
    renameSync(home, `${home}-moved`);
    // The job ends only now: its end and its event are recorded in the moved file.
    await end();
    await expect(claimed).rejects.toBeInstanceOf(EngineError);
    await expect(claimed).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(claimed).rejects.toThrow(`the state store this process opened is no longer at ${home}/state.db`);
    // The event is in the moved file, still pending: the claim left it there rather than lease it.
    const moved = SqliteStore.open(`${home}-moved`);
    try {
      expect(moved.events.eventsOfJob(jobId).map((e) => e.name)).toEqual(['job.cancelled']);
      expect(moved.events.counts('watcher')).toMatchObject({ pending: 1, inFlight: 0 });
    } finally {
      moved.close();
    }
  });

  it('claims the event as ever when the home is where it was', async () => {
    const { jobId, claimed, end } = await aClaimWaitingForARunningJob();
    await end();
    const result = await claimed;
    expect(result.status).toBe('success');
    expect(eventsOf(result).map((e) => [e.name, e.job_id])).toEqual([['job.cancelled', jobId]]);
  });
});
