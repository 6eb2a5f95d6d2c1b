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
 * until the test ends it, after the move.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../../src/api/index.js';
import { BatchRecords } from '../../../../src/core/batch/batch-records.js';
import { systemClock, type Clock } from '../../../../src/core/clock.js';
import { createEngine, type Engine } from '../../../../src/core/engine.js';
import { EngineError } from '../../../../src/core/errors.js';
import { serveSharedSupervisor } from '../../../../src/core/run/shared-supervisor.js';
import { parseLine, readLines, supervisorPaths, writeLine } from '../../../../src/core/run/supervisor-socket.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { PROVIDERS } from '../../../../src/providers/registry.js';

const GROUP = 'bg-0123456789ab';
/** A job id the supervisor served here holds until the test ends: it keeps the supervisor from its idle exit. */
const HOLD = 'hold-the-supervisor';

let cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  // Last set up, first undone; each runs even when one before it failed.
  const errors: unknown[] = [];
  for (const cleanup of cleanups.reverse())
    await Promise.resolve()
      .then(cleanup)
      .catch((error: unknown) => errors.push(error));
  cleanups = [];
  if (errors.length > 0) throw errors[0];
});

/** One handover as a caller makes it (detach-job.ts): true once the supervisor accepted the job, false when it refused before its owner line. */
function handOver(home: string, jobId: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(supervisorPaths(home).socket);
    let accepted = false;
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(accepted));
    socket.on('connect', () => writeLine(socket, { v: 1, job: jobId }));
    readLines(socket, (line) => {
      const message = parseLine(line);
      if (message?.owner) writeLine(socket, JSON.stringify({ v: 1, jobId }));
      else if (message?.accepted === true) {
        accepted = true;
        socket.destroy();
      }
    });
  });
}

/**
 * The home's shared supervisor, served in this process by an engine of its own whose clock's sleeps last until
 * `wake`. It holds a job of the test's (HOLD) until the test ends, so it never exits idle under the batch: a batch
 * that found no supervisor would start a supervisor process of its own.
 */
async function serveSupervisorHere(home: string): Promise<{ sleeping: Promise<void>; wake: () => void }> {
  let wake!: () => void;
  const woken = new Promise<void>((resolve) => (wake = resolve));
  let slept!: () => void;
  const sleeping = new Promise<void>((resolve) => (slept = resolve));
  // The fake's `sleep` sleeps on its engine's clock: on this one, until the test wakes it (or the job is stopped).
  const clock: Clock = {
    ...systemClock,
    sleep: (_ms, signal) => {
      slept();
      return new Promise((resolve) => {
        void woken.then(() => resolve());
        signal?.addEventListener('abort', () => resolve(), { once: true });
      });
    },
  };
  const supervisor = createEngine({ home, providers: PROVIDERS, defaultProvider: 'fake', version: '0.0.0-test', clock });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  for (let attempt = 0; attempt < 10; attempt++) {
    const serving = serveSharedSupervisor({
      home,
      idleMs: 10,
      supervise: (jobId, handover) => (jobId === HOLD ? released : supervisor.superviseJob(jobId, handover)),
    });
    const socket = supervisorPaths(home).socket;
    for (let i = 0; i < 1000 && !existsSync(socket); i++) await new Promise((r) => setTimeout(r, 2));
    if (await handOver(home, HOLD)) {
      cleanups.push(async () => {
        wake();
        release();
        // Idle once its jobs have ended: bounded, so a supervisor that did not exit fails the test rather than the worker.
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise((_, fail) => (timer = setTimeout(() => fail(new Error('the supervisor served here did not exit')), 5_000)));
        try {
          await Promise.race([serving, late]);
        } finally {
          clearTimeout(timer);
          supervisor.close();
        }
      });
      return { sleeping, wake };
    }
    // It went idle before the hold reached it: serve it again.
    await serving;
  }
  throw new Error('the supervisor served here never took the job that holds it');
}

/** A home with workspace w, its supervisor served here, and a batch of one job, `sleep 60` in w, recorded with no driver. */
async function batchOfOneSleepingJob(): Promise<{ home: string; engine: Engine; sleeping: Promise<void>; wake: () => void }> {
  const home = mkdtempSync(join(tmpdir(), 'hs-batch-moved-'));
  cleanups.push(() => {
    if (existsSync(`${home}-moved`)) {
      // The fake provider saved its state at the old path when the job ended: what is there is only that.
      rmSync(home, { recursive: true, force: true });
      renameSync(`${home}-moved`, home);
    }
    rmSync(home, { recursive: true, force: true });
  });
  // The batch wait's engine: the registered fake (a batch's jobs are detached runs, which need one), on the real clock.
  const engine = createHeadspace({ home, defaultProvider: 'fake' });
  cleanups.push(() => engine.close());
  await engine.create({ workspaceId: 'w' });
  const { sleeping, wake } = await serveSupervisorHere(home);
  // As `batch --detach` records a batch (batch.ts startBatch), with no driver yet: the batch wait adopts it.
  const records = SqliteStore.open(home);
  try {
    new BatchRecords(records).insertGroup(
      {
        id: GROUP,
        strategy: 'all',
        quorum: null,
        concurrency: 1,
        timeoutMs: null,
        cleanupTimeoutMs: 10_000,
        keepForks: false,
        createdAt: Date.now(),
        driver: null,
      },
      [{ name: 'only', workspaceId: 'w', forkOf: null, argv: ['sleep', '60'] }],
      'trace-test',
    );
  } finally {
    records.close();
  }
  return { home, engine, sleeping, wake };
}

/** Resolves once the batch wait drives the batch with its job recorded running, and is about to wait for a change. */
function drivingItsRunningJob(engine: Engine): Promise<void> {
  return new Promise((resolve) => {
    const stop = engine.events.subscribe((event) => {
      if (event.type === 'batch.progress' && event.groupId === GROUP && event.running === 1) {
        stop();
        resolve();
      }
    });
  });
}

describe('a batch wait whose home was moved', () => {
  it('says the store moved (STORE_UNAVAILABLE) instead of answering with the batch finished after the move', async () => {
    const { home, engine, sleeping, wake } = await batchOfOneSleepingJob();
    const driving = drivingItsRunningJob(engine);
    const waited = engine.batchWait({ groupId: GROUP, timeoutSeconds: 20 });
    waited.catch(() => undefined);
    // The batch wait waits for a change, and the job sleeps in the supervisor.
    await Promise.all([driving, sleeping]);
    renameSync(home, `${home}-moved`);
    // The job ends only now: its end, and the batch's, are recorded in the moved file.
    wake();
    await expect(waited).rejects.toBeInstanceOf(EngineError);
    await expect(waited).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(waited).rejects.toThrow(`the state store this process opened is no longer at ${home}/state.db`);
    // The batch did finish, in the moved file: the record the wait had to refuse to answer from.
    const moved = SqliteStore.open(`${home}-moved`);
    try {
      expect(new BatchRecords(moved).group(GROUP)).toMatchObject({ state: 'finished', status: 'success' });
    } finally {
      moved.close();
    }
  });

  it('answers as ever when the home is where it was', async () => {
    const { engine, sleeping, wake } = await batchOfOneSleepingJob();
    const driving = drivingItsRunningJob(engine);
    const waited = engine.batchWait({ groupId: GROUP, timeoutSeconds: 20 });
    waited.catch(() => undefined);
    await Promise.all([driving, sleeping]);
    wake();
    const result = await waited;
    expect(result.status).toBe('success');
    expect(result.outcome_summary).toContain('every one of 1 jobs succeeded');
  });
});
