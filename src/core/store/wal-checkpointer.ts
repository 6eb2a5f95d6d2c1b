import type * as WorkerThreads from 'node:worker_threads';
import { createRequire } from 'node:module';
import { lazyRequire } from '../lazy-require.js';
import { sqliteAddonPath } from './sqlite-addon.js';

const workerThreads = lazyRequire<typeof WorkerThreads>('node:worker_threads');

/**
 * WAL checkpoints off the engine's thread (#20). A checkpoint fsyncs the
 * WAL and then the database; with the store's 10,000-page autocheckpoint
 * that flushed up to ~40 MB of WAL at once, 25–36 ms of wall on the commit
 * that happened to pay it, ≈ 60% of all commit time in a busy process.
 *
 Every `every` write commits this connection asks SQLite how many WAL
 * frames are not yet checkpointed (`PRAGMA wal_checkpoint(NOOP)`: no lock,
 * no I/O, the wal-index header read); from `threshold` frames on, a worker
 * thread with its own connection runs `PRAGMA wal_checkpoint(PASSIVE)`, one
 * at a time. The worker starts the first time that happens: a CLI call makes
 * a few commits and never starts one. PASSIVE neither waits for nor blocks the engine's
 * readers and writers, so the fsyncs happen beside the engine's work. The
 * engine's connection keeps SQLite's own autocheckpoint as the cap: the WAL
 * grows no further than it did before, and only a busy WAL's last few
 * frames (those written while the worker ran) are checkpointed inline, which
 * is also what lets the WAL start over from its beginning. Durability is
 * unchanged: the same checkpoint, the same `synchronous`, on another thread.
 *
 * The worker is unref'd (it never keeps a process alive) and terminated on
 * close. A worker that fails is not restarted: one line on stderr, and the
 * inline autocheckpoint carries on as before; a checkpoint never holds a
 * record, so nothing is lost either way.
 */
export class WalCheckpointer {
  private readonly dbPath: string;
  private readonly walFrames: () => { log: number; checkpointed: number };
  private readonly every: number;
  private readonly threshold: number;
  private commits = 0;
  private worker: WorkerThreads.Worker | null = null;
  private everStarted = false;
  /**
   * [0] is 1 while the worker checkpoints. Shared memory, not a reply message: a busy engine's
   * calls can chain through promises alone for seconds, and a message waits for the event loop.
   */
  private readonly busy = new Int32Array(new SharedArrayBuffer(4));
  private stopped = false;

  /** `walFrames` runs `PRAGMA wal_checkpoint(NOOP)` on the engine's connection (outside a transaction). */
  constructor(dbPath: string, walFrames: () => { log: number; checkpointed: number }, options: { every?: number; threshold?: number } = {}) {
    this.dbPath = dbPath;
    this.walFrames = walFrames;
    this.every = options.every ?? 32;
    this.threshold = options.threshold ?? 1000;
  }

  /** Called after each write transaction this connection commits. */
  afterWriteCommit(): void {
    if (++this.commits < this.every || this.stopped) return;
    this.commits = 0;
    if (Atomics.load(this.busy, 0) !== 0) return;
    const { log, checkpointed } = this.walFrames();
    if (log - checkpointed < this.threshold) return;
    if (this.worker === null) {
      this.worker = this.start();
      this.everStarted = true;
    }
    Atomics.store(this.busy, 0, 1);
    this.worker!.postMessage('checkpoint');
  }

  /**
   * Ends the worker (its connection is closed by its own teardown); later commits checkpoint inline only.
   * Returns whether a worker was ever started: its connection may outlive the engine's by a moment, so the
   * engine's close is then not the last one, which SQLite would have checkpointed and removed the WAL on.
   */
  close(): boolean {
    this.stopped = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) void worker.terminate();
    return this.everStarted;
  }

  private start(): WorkerThreads.Worker {
    const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new (workerThreads().Worker)(WORKER_SOURCE, {
      eval: true,
      workerData: { betterSqlite3, nativeBinding: sqliteAddonPath(), dbPath: this.dbPath, busy: this.busy },
    });
    worker.on('error', (error: Error) => this.fail(worker, error.message));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(worker, `exited with code ${code}`);
    });
    worker.unref();
    return worker;
  }

  private fail(worker: WorkerThreads.Worker, why: string): void {
    if (this.worker !== worker) return; // closed, or already failed
    this.worker = null;
    this.stopped = true;
    process.stderr.write(`headspace: the state store's checkpoint worker failed (${why}); checkpoints run inline from now on\n`);
    void worker.terminate();
  }
}

/**
 * The worker's program, run with `eval` (CommonJS, `require` available) so it works the same from the
 * sources under test, the per-file build and the CLI bundle (as egress-ca.ts's signer does).
 * better-sqlite3 is required by the absolute path the parent resolved. `synchronous` as the engine's
 * connection has it; the checkpoint syncs the WAL and the database either way.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.betterSqlite3);
// Linux keeps a nice value per thread: this one yields to the engine's thread on a busy machine.
try { require('node:os').setPriority(19); } catch {}
const db = new Database(workerData.dbPath, { fileMustExist: true, nativeBinding: workerData.nativeBinding });
db.pragma('synchronous = NORMAL');
parentPort.on('message', () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } finally {
    Atomics.store(workerData.busy, 0, 0);
  }
});
`;
