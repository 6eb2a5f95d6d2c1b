/**
 * For the tests of a batch whose home is moved while its job runs (the
 * batch verbs answer only from a store still at its home): the home's shared
 * supervisor served in this process, by an engine of its own whose clock
 * holds the fake job's `sleep` until the test wakes it, so the test moves the
 * home first and the job ends after the move, in the moved file, through the
 * supervisor's connection opened before.
 *
 * All in this process, so the batch's driver and the job's supervisor are the
 * same process (one pid): each is alive for as long as the test runs.
 */
import { existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { createHeadspace } from '../../src/api/index.js';
import { BatchRecords, type GroupRecord } from '../../src/core/batch/batch-records.js';
import { systemClock, type Clock } from '../../src/core/clock.js';
import { createEngine, type Engine } from '../../src/core/engine.js';
import { serveSharedSupervisor } from '../../src/core/run/shared-supervisor.js';
import { parseLine, readLines, supervisorPaths, writeLine } from '../../src/core/run/supervisor-socket.js';
import { SqliteStore } from '../../src/core/store/sqlite-store.js';
import { PROVIDERS } from '../../src/providers/registry.js';

export type Cleanup = () => Promise<void> | void;

/**
 * What a test sets up, undone after each test: last set up, first undone, each even when one before it failed (the
 * first failure is the test's). Call it once at the top of a test file; it returns how to add to the list.
 */
export function cleanupsAfterEach(): (cleanup: Cleanup) => void {
  let cleanups: Cleanup[] = [];
  afterEach(async () => {
    const errors: unknown[] = [];
    for (const cleanup of cleanups.reverse())
      await Promise.resolve()
        .then(cleanup)
        .catch((error: unknown) => errors.push(error));
    cleanups = [];
    if (errors.length > 0) throw errors[0];
  });
  return (cleanup) => void cleanups.push(cleanup);
}

/** A job id the supervisor served here holds until the test ends: it keeps the supervisor from its idle exit. */
const HOLD = 'hold-the-supervisor';

/** One handover as a caller makes it (detach-job.ts): true once the supervisor accepted the job, false when it refused before its owner line. */
export function handOver(home: string, jobId: string): Promise<boolean> {
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

export interface SupervisorServedHere {
  /** Resolves once a job's `sleep` has begun: the job is running, recorded so, and waits for `wake`. */
  sleeping: Promise<void>;
  /** Resolves once a stop reached a sleeping job (the fake's TERM): with `holdThroughStop`, it still sleeps until `wake`. */
  stopping: Promise<void>;
  /** Ends every sleep, now and later. */
  wake: () => void;
}

/**
 * The home's shared supervisor, served in this process by an engine of its own whose clock's sleeps last until
 * `wake`. A stop ends a sleep at once, as ever, unless `holdThroughStop`: then it too waits for `wake`, so a test can
 * act between a stop's arrival and the job's end. It holds a job of the test's (HOLD) until the test ends, so it
 * never exits idle under the batch: a batch that found no supervisor would start a supervisor process of its own.
 */
export async function serveSupervisorHere(
  home: string,
  defer: (cleanup: Cleanup) => void,
  options: { holdThroughStop?: boolean } = {},
): Promise<SupervisorServedHere> {
  let wake!: () => void;
  const woken = new Promise<void>((resolve) => (wake = resolve));
  let slept!: () => void;
  const sleeping = new Promise<void>((resolve) => (slept = resolve));
  let stopped!: () => void;
  const stopping = new Promise<void>((resolve) => (stopped = resolve));
  // The fake's `sleep` sleeps on its engine's clock: on this one, until the test wakes it (or a stop ends it, unless held through).
  const clock: Clock = {
    ...systemClock,
    sleep: (_ms, signal) => {
      slept();
      return new Promise((resolve) => {
        void woken.then(() => resolve());
        const onStop = () => {
          stopped();
          if (options.holdThroughStop !== true) resolve();
        };
        if (signal?.aborted) onStop();
        else signal?.addEventListener('abort', onStop, { once: true });
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
      defer(async () => {
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
      return { sleeping, stopping, wake };
    }
    // It went idle before the hold reached it: serve it again.
    await serving;
  }
  throw new Error('the supervisor served here never took the job that holds it');
}

/** Where `moveHome` puts the home. */
export const movedPath = (home: string): string => `${home}-moved`;

/** Moves the home away, as a user's `mv` does: every connection opened before reads and writes the moved file. */
export function moveHome(home: string): void {
  renameSync(home, movedPath(home));
}

/**
 * A home with workspace w, an engine on it (the registered fake, which a batch's detached jobs need, on the real
 * clock), and its shared supervisor served here. Its cleanup also takes away a home that was moved.
 */
export async function aHomeWithItsSupervisorServedHere(
  defer: (cleanup: Cleanup) => void,
  options: { holdThroughStop?: boolean } = {},
): Promise<{ home: string; engine: Engine } & SupervisorServedHere> {
  const home = mkdtempSync(join(tmpdir(), 'hs-batch-moved-'));
  defer(() => {
    if (existsSync(movedPath(home))) {
      // The fake provider saved its state at the old path when the job ended: what is there is only that.
      rmSync(home, { recursive: true, force: true });
      renameSync(movedPath(home), home);
    }
    rmSync(home, { recursive: true, force: true });
  });
  const engine = createHeadspace({ home, defaultProvider: 'fake' });
  defer(() => engine.close());
  await engine.create({ workspaceId: 'w' });
  const supervisor = await serveSupervisorHere(home, defer, options);
  return { home, engine, ...supervisor };
}

/** A batch of one job, `argv` in workspace w, recorded as `batch --detach` records it (batch.ts startBatch) with no driver yet: a batch wait or cancel adopts it. */
export function recordABatchWithNoDriver(home: string, groupId: string, argv: string[]): void {
  const records = SqliteStore.open(home);
  try {
    new BatchRecords(records).insertGroup(
      {
        id: groupId,
        strategy: 'all',
        quorum: null,
        concurrency: 1,
        timeoutMs: null,
        cleanupTimeoutMs: 10_000,
        keepForks: false,
        createdAt: Date.now(),
        driver: null,
      },
      [{ name: 'only', workspaceId: 'w', forkOf: null, argv }],
      'trace-test',
    );
  } finally {
    records.close();
  }
}

/** The batch as the moved home's file holds it (what a caller refused would have been answered from). */
export function batchInTheMovedHome(home: string, groupId: string): GroupRecord | undefined {
  const moved = SqliteStore.open(movedPath(home));
  try {
    return new BatchRecords(moved).group(groupId);
  } finally {
    moved.close();
  }
}

/**
 * Resolves with the batch's id once a driver in `engine` drives it (any batch, or `groupId`) with its job recorded
 * running, and is about to wait for a change.
 */
export function drivingItsRunningJob(engine: Engine, groupId?: string): Promise<string> {
  return new Promise((resolve) => {
    const stop = engine.events.subscribe((event) => {
      if (event.type === 'batch.progress' && (groupId === undefined || event.groupId === groupId) && event.running === 1) {
        stop();
        resolve(event.groupId);
      }
    });
  });
}

/** `promise`, or a failure naming `what` after `ms`: a step that never comes fails its test in seconds, not at the test's timeout. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`${what} did not happen within ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
