import type { EgressDecision } from '../network/egress-ledger.js';
import type { JobUsage } from '../provider.js';
import Database from 'better-sqlite3';
import { nextAction } from '../next-action.js';
import { closeSync, mkdirSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { EngineError } from '../errors.js';
import type { WorkspaceState } from '../lifecycle/transitions.js';
import { transition } from '../lifecycle/transitions.js';
import { JOB_SLOT_COUNT } from '../job-identity.js';
import { MIGRATIONS, NETWORK_CUT_SQL, SCHEMA_VERSION } from './migrations.js';
import { EventQueue } from './event-queue.js';
import { WalCheckpointer } from './wal-checkpointer.js';
import { refuseUnsafeHome } from './home-safety.js';
import { sqliteAddonPath } from './sqlite-addon.js';
import { isOwnerAlive, type Owner } from './owner.js';
import { workspaceExists } from '../lifecycle/workspace-exists.js';
import {
  toIntent,
  toJob,
  toWorkspace,
  type ArtifactRecord,
  type InputRecord,
  type IntentRecord,
  type JobFinish,
  type JobRecord,
  type Row,
  type WorkspaceRecord,
} from './records.js';

export type { ArtifactRecord, InputRecord, IntentRecord, JobFinish, JobRecord, LimitHit, WorkspaceRecord } from './records.js';

/** One stored receipt version of a job (#16): its canonical document and that document's sha256. */
export interface ReceiptRow {
  jobId: string;
  workspaceId: string;
  version: number;
  sha256: string;
  document: string;
  createdAt: number;
}

/** One supervision rule of a workspace (#16), in its canonical text form. */
export interface RuleRow {
  rule: string;
  addedAt: number;
  /** Only the workspace's jobs recorded after this jobs rowid (set at add and at clear) count toward stuck and error-rate. */
  countsAfterJob: number;
  /** When a blocking rule tripped (jobs are refused until clear); null otherwise. */
  trippedAt: number | null;
  trippedByJob: string | null;
}

export interface RuleDecisionRow {
  jobId: string | null;
  rule: string;
  decision: string;
  detail: string;
  at: number;
}

/** doctor's removal of what a provider still holds of a workspace recorded destroyed (core/repair/apply-repairs.ts). */
export const REMOVE_HELD_OP = 'repair:remove-workspace';

/**
 * Intent ops that hold a workspace exclusively while their process lives
 * (with a running job, which `beginJob` records as the workspace state).
 * A lease of a dead process holds nothing: a crash never locks a workspace.
 */
export const LEASING_OPS: readonly string[] = ['put', 'export', 'remove', 'checkpoint', 'restore', 'fork', 'settle', REMOVE_HELD_OP];

/** The SQLite file's header keeps user_version at bytes 60–63, big-endian. */
function readSchemaVersionFromHeader(file: string): number | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const header = Buffer.alloc(100);
    const n = readSync(fd, header, 0, 100, 0);
    if (n < 100) return null;
    return header.readUInt32BE(60);
  } finally {
    closeSync(fd);
  }
}

/**
 * CLI-owned state in embedded SQLite (WAL). Many processes may open it at
 * once; every state-changing step runs in an IMMEDIATE transaction so two
 * processes cannot both take a workspace for a job.
 */
export class SqliteStore {
  readonly path: string;
  private readonly db: Database.Database;
  /** Prepared once per connection: preparing on every call cost more than running. */
  private readonly statements = new Map<string, Database.Statement>();
  /** Job events, subscriptions and deliveries (#15), on this connection and in its transactions. */
  readonly events: EventQueue;

  /** Recorded on every intent this connection journals: 'ui' for the dashboard's engine (#21), null otherwise. */
  private readonly actor: string | null;
  /** Moves a busy process's WAL checkpoints to a worker thread; the autocheckpoint stays the cap (#20). */
  private readonly checkpoints: WalCheckpointer;
  /**
   * SQLite's data_version, prepared once: waiters read it every few ms (wait-for-change.ts), and `db.pragma()`
   * prepares a statement on every call, which made a waiting `wait` cost more than reading its records.
   */
  private readonly dataVersion: Database.Statement;
  /** The file this connection opened (device and inode), to tell it from whatever is at `path` later. */
  private readonly identity: { dev: number; ino: number } | null;
  /** When `refuseIfMoved` last looked (epoch ms): a waiter calls it every poll, the stat runs at most every 250 ms. */
  private lastLookedAt = 0;
  /** How many of `refuseIfMoved`'s looks in a row found another file, or none, at `path`. */
  private movedLooks = 0;

  private constructor(path: string, db: Database.Database, actor: string | null) {
    this.path = path;
    this.db = db;
    this.actor = actor;
    this.checkpoints = new WalCheckpointer(path, () => this.sql('PRAGMA wal_checkpoint(NOOP)').get() as { log: number; checkpointed: number });
    const opened = fileIdentity(path);
    this.identity = typeof opened === 'object' ? opened : null;
    this.dataVersion = db.prepare('PRAGMA data_version').pluck();
    this.events = new EventQueue(
      (text) => this.sql(text),
      (fn) => this.atomically(fn),
      () => this.dataVersion.get() as number,
    );
  }

  /**
   * Runs `fn` in one IMMEDIATE transaction (the write lock taken up front, so
   * two processes cannot both read "ready" and both take the workspace).
   * Re-entrant: inside another atomically() call it joins that transaction,
   * which lets a verb group several steps into a single commit.
   */
  atomically<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    this.sql('BEGIN IMMEDIATE').run();
    try {
      const out = fn();
      this.sql('COMMIT').run();
      this.checkpoints.afterWriteCommit();
      return out;
    } catch (error) {
      if (this.db.inTransaction) this.sql('ROLLBACK').run();
      throw error;
    }
  }

  /**
   * Runs `fn` in one DEFERRED (read) transaction: its reads see one snapshot,
   * without taking the write lock or writing a commit to the WAL. For checks
   * that refuse early and are repeated inside the write transaction that acts
   * (beginJob, leaseWorkspace): an IMMEDIATE transaction there serialised
   * readers behind writers and cost a commit per check (#20).
   * Inside another transaction it joins that one.
   */
  readConsistently<T>(fn: () => T): T {
    if (this.db.inTransaction) return fn();
    this.sql('BEGIN DEFERRED').run();
    try {
      return fn();
    } finally {
      if (this.db.inTransaction) this.sql('COMMIT').run();
    }
  }

  /**
   * A prepared statement for a store area kept in its own file (the snapshot
   * records, core/snapshots/snapshot-records.ts), so this file does not grow
   * with every area's queries. Cached like every other statement.
   */
  statement(text: string): Database.Statement {
    return this.sql(text);
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  static open(home: string, options: { actor?: string } = {}): SqliteStore {
    // Judged before it is made (a refusal leaves nothing in a hostile folder) and as made.
    refuseUnsafeHome(home);
    try {
      if (mkdirSync(home, { recursive: true, mode: 0o700 }) !== undefined) refuseUnsafeHome(home);
    } catch (cause) {
      if (cause instanceof EngineError) throw cause;
      throw new EngineError('STORE_UNAVAILABLE', `cannot create the state directory ${home}`, { hint: 'set HEADSPACE_HOME to a writable directory', cause });
    }
    // Absolute as opened: `refuseIfMoved` stats it again later, when the process may have another cwd.
    const path = resolve(home, 'state.db');
    // Read the version from the file header before opening: a newer store must
    // be left byte-identical, and even opening it in WAL mode could touch it.
    const onDisk = readSchemaVersionFromHeader(path);
    if (onDisk !== null && onDisk > SCHEMA_VERSION) {
      throw new EngineError(
        'STORE_SCHEMA_NEWER',
        `the state store at ${path} has schema version ${onDisk}, newer than this headspace understands (${SCHEMA_VERSION}); it was not modified`,
        {
          hint: 'upgrade headspace, or point HEADSPACE_HOME at another directory',
        },
      );
    }
    let db: Database.Database;
    try {
      db = new Database(path, { nativeBinding: sqliteAddonPath() });
      db.pragma('busy_timeout = 10000');
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      // A checkpoint fsyncs the WAL and the database: at the default 1,000
      // pages it came every ~100 commits and the top 1% of commits (those
      // paying it) took 60% of all commit time. 10,000 pages (~40 MiB of WAL
      // at most) amortises it; the last connection to close still checkpoints.
      // In a busy process the WalCheckpointer's worker does most of it off
      // this thread, and this stays the cap (wal-checkpointer.ts).
      db.pragma('wal_autocheckpoint = 10000');
      db.pragma('foreign_keys = ON');
    } catch (cause) {
      throw new EngineError('STORE_UNAVAILABLE', `cannot open the state store at ${path}: ${(cause as Error).message}`, {
        hint: 'check the file permissions, or ask doctor',
        action: nextAction('doctor'),
        cause,
      });
    }
    const store = new SqliteStore(path, db, options.actor ?? null);
    store.migrate();
    return store;
  }

  private migrate(): void {
    this.atomically(() => {
      const version = this.db.pragma('user_version', { simple: true }) as number;
      if (version > SCHEMA_VERSION) {
        throw new EngineError('STORE_SCHEMA_NEWER', `the state store has schema version ${version}, newer than ${SCHEMA_VERSION}`, {
          hint: 'upgrade headspace',
        });
      }
      for (let v = version; v < SCHEMA_VERSION; v++) {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      }
    });
  }

  /**
   * Throws STORE_UNAVAILABLE when the file this connection opened is no
   * longer the one at its path (HEADSPACE_HOME deleted, moved or replaced).
   * An open connection reads and writes an unlinked file as ever, so a
   * process that waits on the store (wait, batch wait, a batch's driver, a
   * waiting claim) would otherwise wait forever for a change nobody can
   * make: two such drivers outlived their test's home. Looks at most every
   * 250 ms, so a waiter may call it on every poll; `now` looks at once (before
   * a waiter concludes anything else from what it read, e.g. that a job's
   * process died: a home taken away ends that process too). A long-lived
   * engine looks at once at the start of every call (engine.ts), and each
   * waiting verb before it answers.
   */
  refuseIfMoved(options: { now?: boolean } = {}): void {
    const now = Date.now();
    if (this.identity === null || (options.now !== true && now - this.lastLookedAt < 250)) return;
    this.lastLookedAt = now;
    const current = fileIdentity(this.path);
    // A look that could not tell (EACCES, EIO, ESTALE: a path unreadable for a moment) decides nothing.
    if (current === 'unknown') return;
    if (current !== 'gone' && current.dev === this.identity.dev && current.ino === this.identity.ino) {
      this.movedLooks = 0;
      return;
    }
    // Moved only when two looks in a row say so (a waiter's look is 250 ms after the last): a symlink in the home's
    // path replaced by rm then ln, not atomically, read as gone for a moment and killed a batch's driver. A caller about
    // to conclude something else from what it read (`now`) takes one look as it is.
    if (options.now !== true && ++this.movedLooks < 2) return;
    throw new EngineError(
      'STORE_UNAVAILABLE',
      `the state store this process opened is no longer at ${this.path}: its HEADSPACE_HOME was deleted, moved or replaced since, so nothing done now can be recorded there`,
      {
        hint: 'point HEADSPACE_HOME at the home that holds the work, and list what it holds; a long-lived engine opened before the move must be started again',
      },
    );
  }

  schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  integrityCheck(): string {
    return String(this.db.pragma('quick_check', { simple: true }));
  }

  close(): void {
    const workerStarted = this.checkpoints.close();
    this.statements.clear();
    if (!this.db.open) return;
    // With the checkpoint worker's connection possibly still open, this close would not be the last one, and
    // the WAL (up to the 10,000-page cap, ~40 MB) would stay on disk: checkpoint it and truncate it now.
    if (workerStarted) {
      try {
        this.db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        // Busy past the timeout: the WAL stays, and the next open recovers it as ever.
      }
    }
    this.db.close();
  }

  // ---- workspaces ----

  /**
   * Records a new workspace and allocates its job identity slot in the same
   * IMMEDIATE transaction (two processes creating at once cannot both take
   * a slot: the write lock serialises them, and the unique index refuses a
   * second live holder regardless). The lowest free slot is taken, so a
   * destroyed workspace's slot is reused first. Returns the record.
   */
  insertWorkspace(record: Omit<WorkspaceRecord, 'jobSlot' | 'failureReason'>, slots = JOB_SLOT_COUNT): WorkspaceRecord & { jobSlot: number } {
    return this.atomically(() => {
      const existing = this.sql('SELECT state FROM workspaces WHERE id = ?').get(record.id) as Row | undefined;
      // doctor removing what a provider kept of the destroyed workspace of this id: a create now would have its new
      // workspace removed in its place (red team, session 20). Looked at in this transaction, as doctor's lease is taken in its.
      const lease = this.liveLease(record.id);
      if (lease?.op === REMOVE_HELD_OP) throw this.leaseBusyError(record.id, lease);
      if (existing && existing.state === 'destroyed') {
        // A destroyed workspace keeps nothing but its record; its id may be used again.
        this.sql('DELETE FROM jobs WHERE workspace_id = ?').run(record.id);
        this.sql('DELETE FROM inputs WHERE workspace_id = ?').run(record.id);
        this.sql('DELETE FROM artifacts WHERE workspace_id = ?').run(record.id);
        this.sql('DELETE FROM checkpoints WHERE workspace_id = ?').run(record.id);
        this.sql('DELETE FROM job_receipts WHERE workspace_id = ?').run(record.id);
        this.sql('DELETE FROM workspace_rules WHERE workspace_id = ?').run(record.id);
        this.sql('DELETE FROM rule_decisions WHERE workspace_id = ?').run(record.id);
        this.sql('DELETE FROM workspaces WHERE id = ?').run(record.id);
      } else if (existing) {
        throw workspaceExists(record.id, String(existing.state));
      }
      const jobSlot = this.freeJobSlot(slots);
      this.sql(
        `INSERT INTO workspaces (id, provider, state, profile, policy, environment_digest, purpose, owner, created_at, updated_at, expires_at, lifecycle_path, job_slot)
           VALUES (@id, @provider, @state, @profile, @policy, @environmentDigest, @purpose, @owner, @createdAt, @updatedAt, @expiresAt, @lifecyclePath, @jobSlot)`,
      ).run({ ...record, policy: JSON.stringify(record.policy), lifecyclePath: JSON.stringify(record.lifecyclePath), jobSlot });
      return { ...record, jobSlot, failureReason: null };
    });
  }

  /** The lowest slot in 1..slots no live workspace holds; JOB_IDS_EXHAUSTED when there is none. Call inside a transaction. */
  private freeJobSlot(slots: number): number {
    // The first slot, or the first one after a held slot whose successor is free: one pass over the unique index.
    const row = this.sql(
      `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM workspaces WHERE job_slot = 1 AND state != 'destroyed') THEN 1
              ELSE (SELECT MIN(a.job_slot) + 1 FROM workspaces a WHERE a.state != 'destroyed' AND a.job_slot IS NOT NULL
                    AND NOT EXISTS (SELECT 1 FROM workspaces b WHERE b.job_slot = a.job_slot + 1 AND b.state != 'destroyed')) END AS slot`,
    ).get() as Row;
    const slot = Number(row.slot);
    if (!Number.isInteger(slot) || slot > slots) {
      throw new EngineError('JOB_IDS_EXHAUSTED', `every one of the ${slots} job identities is held by a workspace that is not destroyed`, {
        hint: 'destroy workspaces you no longer need (failed ones too; ls lists them), or collect the expired ones',
        action: nextAction('gc'),
      });
    }
    return slot;
  }

  getWorkspace(id: string): WorkspaceRecord | undefined {
    const row = this.sql('SELECT * FROM workspaces WHERE id = ?').get(id) as Row | undefined;
    return row ? toWorkspace(row) : undefined;
  }

  listWorkspaces(options: { includeDestroyed?: boolean } = {}): WorkspaceRecord[] {
    const sql = options.includeDestroyed
      ? 'SELECT * FROM workspaces ORDER BY created_at, id'
      : "SELECT * FROM workspaces WHERE state != 'destroyed' ORDER BY created_at, id";
    return (this.sql(sql).all() as Row[]).map(toWorkspace);
  }

  /** Moves a workspace through the lifecycle table (illegal moves throw), recording the path. */
  moveWorkspace(id: string, to: WorkspaceState, now: number, extra: { environmentDigest?: string; failureReason?: string } = {}): WorkspaceRecord {
    return this.moveWorkspaceThrough(id, [to], now, extra);
  }

  /**
   * Moves a workspace through several states in order, each move checked
   * against the lifecycle table and each state recorded in its path, as that
   * many moveWorkspace calls would: one read and one write instead of one of
   * each per state (destroy's ready → cancelled → destroyed, #20).
   */
  moveWorkspaceThrough(
    id: string,
    states: readonly WorkspaceState[],
    now: number,
    extra: { environmentDigest?: string; failureReason?: string } = {},
  ): WorkspaceRecord {
    return this.atomically(() => {
      const current = this.getWorkspace(id);
      if (!current) throw notFound(id);
      if (states.length === 0) return current;
      refuseDestroyed(current);
      let state = current.state;
      for (const to of states) {
        transition(state, to);
        state = to;
      }
      const path = [...current.lifecyclePath, ...states];
      this.sql(
        'UPDATE workspaces SET state = ?, updated_at = ?, lifecycle_path = ?, environment_digest = COALESCE(?, environment_digest), failure_reason = COALESCE(?, failure_reason) WHERE id = ?',
      ).run(state, now, JSON.stringify(path), extra.environmentDigest ?? null, extra.failureReason ?? null, id);
      return {
        ...current,
        state,
        updatedAt: now,
        lifecyclePath: path,
        environmentDigest: extra.environmentDigest ?? current.environmentDigest,
        failureReason: extra.failureReason ?? current.failureReason,
      };
    });
  }

  // ---- jobs ----

  /**
   * Takes a job slot of the workspace atomically: a running job row, and
   * ready → running for the first of them; or WORKSPACE_BUSY naming the
   * running jobs (never their argv) when the policy's concurrency is already
   * taken. Counted inside the IMMEDIATE transaction, so two processes can
   * never both take the last slot (#12 item 8).
   */
  beginJob(job: { id: string; workspaceId: string; argv: string[]; cwd?: string; startedAt: number; owner: Owner }): void {
    return this.atomically(() => {
      const ws = this.getWorkspace(job.workspaceId);
      if (!ws) throw notFound(job.workspaceId);
      refuseDestroyed(ws);
      if (this.isFull(ws)) throw this.busyError(ws.id);
      const lease = this.liveLease(ws.id);
      if (lease) throw this.leaseBusyError(ws.id, lease);
      if (this.sql('SELECT 1 FROM jobs WHERE id = ?').get(job.id)) {
        throw new EngineError('BAD_ID', `job id ${job.id} is already used`, { hint: 'omit the job id to get a fresh one' });
      }
      // The workspace is `running` while at least one job runs: only the first job moves it.
      if (ws.state !== 'running') {
        transition(ws.state, 'running');
        this.sql('UPDATE workspaces SET state = ?, updated_at = ?, lifecycle_path = ? WHERE id = ?').run(
          'running',
          job.startedAt,
          JSON.stringify(compactPath([...ws.lifecyclePath, 'running'])),
          ws.id,
        );
      }
      this.sql(
        `INSERT INTO jobs (id, workspace_id, state, argv, cwd, started_at, owner_pid, owner_started)
           VALUES (?, ?, 'running', ?, ?, ?, ?, ?)`,
      ).run(
        job.id,
        job.workspaceId,
        JSON.stringify(job.argv),
        job.cwd === undefined || job.cwd === '' ? null : job.cwd,
        job.startedAt,
        job.owner.pid,
        job.owner.started,
      );
    });
  }

  /**
   * True when the workspace runs as many jobs as its policy allows at once.
   * A workspace recorded `running` with no running job row (a state written
   * by another path) counts as full, as it always did.
   */
  /**
   * Refuses at once when the workspace's jobs at once are taken. The state
   * and the count are read in one transaction: read apart, a job finishing
   * between them made a workspace look busy with no job running.
   */
  refuseIfFull(workspaceId: string): void {
    this.readConsistently(() => {
      const ws = this.getWorkspace(workspaceId);
      if (ws && this.isFull(ws)) throw this.busyError(ws.id);
    });
  }

  /** Refuses at once while any job runs (put, export, destroy), the state read with its jobs in one transaction. */
  refuseIfRunning(workspaceId: string): void {
    this.readConsistently(() => {
      const ws = this.getWorkspace(workspaceId);
      if (ws?.state === 'running') throw this.busyError(ws.id);
    });
  }

  /** The storage budgets of every workspace of `provider` that is not destroyed: what they may yet write. */
  liveStorageBudget(provider: string): number {
    return this.listWorkspaces()
      .filter((ws) => ws.provider === provider && ws.state !== 'destroyed')
      .reduce((sum, ws) => sum + ws.policy.budget.storageBytes, 0);
  }

  isFull(ws: WorkspaceRecord): boolean {
    if (ws.state !== 'running') return false;
    const running = this.countRunningJobs(ws.id);
    const allowed = ws.policy.budget.concurrency > 1 ? ws.policy.budget.concurrency : 1;
    return running === 0 || running >= allowed;
  }

  /**
   * Settles a running job once; the workspace goes back to ready with its
   * last running job. A second finish is a no-op. The ONLY writer of a
   * terminal job record (#15): the job's one terminal event is inserted here,
   * in the same transaction, so every path that ends a job (run, stop,
   * doctor --repair, a supervisor) emits exactly one; the event id is unique
   * and derived from the job, so even a second call that got past the state
   * check would insert no second event.
   */
  /** `current`: the job's record as the caller has just read it in the same transaction, its own atomically() (not read again, #20). */
  finishJob(jobId: string, finish: JobFinish, current?: JobRecord): JobRecord {
    return this.atomically(() => {
      const job = current?.id === jobId ? current : this.getJob(jobId);
      if (!job)
        throw new EngineError('JOB_NOT_FOUND', `no job ${jobId}`, {
          hint: "inspect the job's workspace for its jobs, or list the workspaces",
          action: nextAction('ls'),
        });
      if (job.state === 'finished') return job;
      const usage = JSON.stringify(finish.usage);
      const cancelledBy = finish.status === 'cancelled' ? (finish.cancelledBy ?? null) : null;
      this.sql(
        `UPDATE jobs SET state = 'finished', status = ?, exit_code = ?, signal = ?, limit_hit = ?, finished_at = ?,
             output_bytes = ?, stored_bytes = ?, usage = ?, note = ?, cancelled_by = ? WHERE id = ?`,
      ).run(
        finish.status,
        finish.exitCode,
        finish.signal,
        finish.limitHit,
        finish.finishedAt,
        finish.outputBytes,
        finish.storedBytes,
        usage,
        finish.note ?? null,
        cancelledBy,
        jobId,
      );
      const ws = this.getWorkspace(job.workspaceId);
      if (ws && ws.state === 'running' && this.countRunningJobs(ws.id) === 0) {
        this.sql('UPDATE workspaces SET state = ?, updated_at = ?, lifecycle_path = ? WHERE id = ?').run(
          'ready',
          finish.finishedAt,
          JSON.stringify(compactPath([...ws.lifecyclePath, 'ready'])),
          ws.id,
        );
      }
      // The record as the row now reads (toJob's fields, in its order), built from what was just written instead of read back (#20).
      const finished: JobRecord = {
        ...job,
        state: 'finished',
        status: finish.status,
        exitCode: finish.exitCode,
        signal: finish.signal,
        limitHit: finish.limitHit,
        finishedAt: finish.finishedAt,
        outputBytes: finish.outputBytes,
        storedBytes: finish.storedBytes,
        usage: JSON.parse(usage) as JobUsage,
        note: finish.note ?? null,
        cancelledBy,
      };
      this.events.recordTerminal(finished);
      return finished;
    });
  }

  requestStop(jobId: string): void {
    this.sql('UPDATE jobs SET stop_requested = 1 WHERE id = ?').run(jobId);
  }

  getJob(id: string): JobRecord | undefined {
    const row = this.sql('SELECT * FROM jobs WHERE id = ?').get(id) as Row | undefined;
    return row ? toJob(row) : undefined;
  }

  listJobs(workspaceId: string): JobRecord[] {
    return (this.sql('SELECT * FROM jobs WHERE workspace_id = ? ORDER BY started_at, rowid').all(workspaceId) as Row[]).map(toJob);
  }

  countJobs(workspaceId: string): number {
    return Number((this.sql('SELECT COUNT(*) AS n FROM jobs WHERE workspace_id = ?').get(workspaceId) as Row).n);
  }

  /** The most recently started running job of the workspace. */
  runningJob(workspaceId: string): JobRecord | undefined {
    const row = this.sql("SELECT * FROM jobs WHERE workspace_id = ? AND state = 'running' ORDER BY started_at DESC LIMIT 1").get(workspaceId) as
      Row | undefined;
    return row ? toJob(row) : undefined;
  }

  /** Every running job of the workspace, oldest first (a policy may allow several at once). */
  runningJobsOf(workspaceId: string): JobRecord[] {
    return (this.sql("SELECT * FROM jobs WHERE workspace_id = ? AND state = 'running' ORDER BY started_at, rowid").all(workspaceId) as Row[]).map(toJob);
  }

  countRunningJobs(workspaceId: string): number {
    return Number((this.sql("SELECT COUNT(*) AS n FROM jobs WHERE workspace_id = ? AND state = 'running'").get(workspaceId) as Row).n);
  }

  runningJobs(): JobRecord[] {
    return (this.sql("SELECT * FROM jobs WHERE state = 'running'").all() as Row[]).map(toJob);
  }

  /** WORKSPACE_BUSY naming every running job (ids only, never argv), with the stop that ends them as its action. */
  busyError(workspaceId: string): EngineError {
    const jobs = this.runningJobsOf(workspaceId);
    const named = runningJobsSubject(jobs.map((j) => j.id));
    const allowed = this.getWorkspace(workspaceId)?.policy.budget.concurrency ?? 1;
    const limit = jobs.length > 1 && allowed > 1 ? ` (its policy allows ${allowed} jobs at once)` : '';
    return new EngineError('WORKSPACE_BUSY', `workspace ${workspaceId} is busy: ${named} running${limit}`, {
      hint: `wait for ${jobs.length > 1 ? 'one of them' : 'it'}, or end ${jobs.length > 1 ? 'them' : 'it'}`,
      action: nextAction('stop', { workspaceId, apply: true }),
    });
  }

  /** Records the NAMES of the environment a job received; values are never stored. */
  recordEnvNames(jobId: string, names: string[]): void {
    this.sql('UPDATE jobs SET env_names = ? WHERE id = ?').run(JSON.stringify(names), jobId);
  }

  /** A job's egress decisions and its network summary line (#18), in one go after the job. */
  recordNetworkDecisions(jobId: string, workspaceId: string, decisions: readonly EgressDecision[], summary: string): void {
    const insert = this.sql(
      'INSERT INTO network_decisions (job_id, seq, workspace_id, at, verdict, host, port, via, reason, bytes_up, bytes_down) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    decisions.forEach((d, seq) =>
      insert.run(jobId, seq, workspaceId, d.at, d.verdict, d.host.slice(0, 255), d.port, d.via, d.reason ?? null, d.bytesUp, d.bytesDown),
    );
    this.sql('UPDATE jobs SET network_summary = ? WHERE id = ?').run(summary, jobId);
  }

  /** The first job of these workspaces whose network was cut for probing the secret redactor (NETWORK_CUT_REASON), if any. */
  networkCutIn(workspaceIds: readonly string[]): { jobId: string; workspaceId: string; at: number } | undefined {
    if (workspaceIds.length === 0) return undefined;
    // The reason as the partial index's literal, so the index (cut rows only) serves it.
    const row = this.sql(
      `SELECT job_id, workspace_id, at FROM network_decisions WHERE reason = ${NETWORK_CUT_SQL} AND workspace_id IN (${workspaceIds.map(() => '?').join(', ')}) ORDER BY at LIMIT 1`,
    ).get(...workspaceIds) as Row | undefined;
    return row === undefined ? undefined : { jobId: String(row.job_id), workspaceId: String(row.workspace_id), at: Number(row.at) };
  }

  /**
   * A job's network cut, recorded the moment it happens (seq -1, beside the decisions its end records): a run with
   * secrets in the workspace is refused from then on, not only once the probing job has ended — a second job of a
   * workspace running jobs at once, or the job's engine killed before its end, left it taking secrets (review).
   */
  recordNetworkCut(jobId: string, workspaceId: string, at: number, host: string, port: number): void {
    this.sql(
      `INSERT OR IGNORE INTO network_decisions (job_id, seq, workspace_id, at, verdict, host, port, via, reason, bytes_up, bytes_down) VALUES (?, -1, ?, ?, 'denied', ?, ?, 'http-connect', ${NETWORK_CUT_SQL}, 0, 0)`,
    ).run(jobId, workspaceId, at, host.slice(0, 255), port);
  }

  /** Whether this job's network was cut for probing the secret redactor (its record, not its summary line, which names 5 denials at most). */
  jobNetworkCut(jobId: string): boolean {
    return this.sql(`SELECT 1 FROM network_decisions WHERE job_id = ? AND reason = ${NETWORK_CUT_SQL} LIMIT 1`).get(jobId) !== undefined;
  }

  networkDecisions(jobId: string): EgressDecision[] {
    // seq -1 is the cut as recorded when it happened (recordNetworkCut): the decisions list has it in its place.
    const rows = this.sql('SELECT * FROM network_decisions WHERE job_id = ? AND seq >= 0 ORDER BY seq').all(jobId) as Row[];
    return rows.map((r) => ({
      at: Number(r.at),
      verdict: r.verdict as EgressDecision['verdict'],
      host: String(r.host),
      port: Number(r.port),
      via: r.via as EgressDecision['via'],
      ...(r.reason === null ? {} : { reason: r.reason as EgressDecision['reason'] }),
      bytesUp: Number(r.bytes_up),
      bytesDown: Number(r.bytes_down),
    }));
  }

  networkSummary(jobId: string): string | null {
    const row = this.sql('SELECT network_summary FROM jobs WHERE id = ?').get(jobId) as Row | undefined;
    return row?.network_summary ? String(row.network_summary) : null;
  }

  envNames(jobId: string): string[] {
    const row = this.sql('SELECT env_names FROM jobs WHERE id = ?').get(jobId) as Row | undefined;
    return row?.env_names ? (JSON.parse(String(row.env_names)) as string[]) : [];
  }

  // ---- inputs and artifacts ----

  recordInput(input: InputRecord): void {
    this.sql('INSERT INTO inputs (workspace_id, job_id, destination, kind, size_bytes, sha256, file_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      input.workspaceId,
      input.jobId,
      input.destination,
      input.kind,
      input.sizeBytes,
      input.sha256,
      input.fileCount,
      input.createdAt,
    );
  }

  listInputs(workspaceId: string, jobId?: string): InputRecord[] {
    const rows = (
      jobId === undefined
        ? this.sql('SELECT * FROM inputs WHERE workspace_id = ? ORDER BY id').all(workspaceId)
        : this.sql('SELECT * FROM inputs WHERE workspace_id = ? AND job_id = ? ORDER BY id').all(workspaceId, jobId)
    ) as Row[];
    return rows.map((row) => ({
      workspaceId: String(row.workspace_id),
      jobId: row.job_id === null ? null : String(row.job_id),
      destination: String(row.destination),
      kind: row.kind as InputRecord['kind'],
      sizeBytes: Number(row.size_bytes),
      sha256: String(row.sha256),
      fileCount: Number(row.file_count),
      createdAt: Number(row.created_at),
    }));
  }

  /**
   * Declares (or re-declares, updating the purpose) an artifact. A job that
   * declares it again becomes the job that produces it: its receipt, not the
   * first declarer's, binds the export (a receipt once bound bytes its job
   * never wrote); a declaration by hand keeps the job it had.
   */
  declareArtifact(artifact: { workspaceId: string; name: string; purpose: string; mediaType: string; declaredByJob: string | null; declaredAt: number }): void {
    this.sql(
      `INSERT INTO artifacts (workspace_id, name, purpose, media_type, declared_by_job, declared_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (workspace_id, name) DO UPDATE SET purpose = excluded.purpose,
         declared_by_job = COALESCE(excluded.declared_by_job, artifacts.declared_by_job)`,
    ).run(artifact.workspaceId, artifact.name, artifact.purpose, artifact.mediaType, artifact.declaredByJob, artifact.declaredAt);
  }

  /** Removes a declaration (a typo, or a file the job never made); true when one was removed. */
  removeArtifact(workspaceId: string, name: string): boolean {
    return this.sql('DELETE FROM artifacts WHERE workspace_id = ? AND name = ?').run(workspaceId, name).changes > 0;
  }

  recordExport(workspaceId: string, name: string, exported: { to: string; sha256: string; size: number; at: number }): void {
    this.sql('UPDATE artifacts SET exported_to = ?, exported_sha256 = ?, exported_size = ?, exported_at = ? WHERE workspace_id = ? AND name = ?').run(
      exported.to,
      exported.sha256,
      exported.size,
      exported.at,
      workspaceId,
      name,
    );
  }

  listArtifacts(workspaceId: string): ArtifactRecord[] {
    return (this.sql('SELECT * FROM artifacts WHERE workspace_id = ? ORDER BY declared_at, name').all(workspaceId) as Row[]).map((row) => ({
      workspaceId: String(row.workspace_id),
      name: String(row.name),
      purpose: String(row.purpose),
      mediaType: String(row.media_type),
      declaredByJob: row.declared_by_job === null ? null : String(row.declared_by_job),
      declaredAt: Number(row.declared_at),
      exportedTo: row.exported_to === null ? null : String(row.exported_to),
      exportedSha256: row.exported_sha256 === null ? null : String(row.exported_sha256),
      exportedSize: row.exported_size === null ? null : Number(row.exported_size),
      exportedAt: row.exported_at === null ? null : Number(row.exported_at),
    }));
  }

  // ---- intent journal ----

  /** Written before every provider call; settled after. An unsettled intent is evidence of a crash. */
  openIntent(intent: {
    workspaceId: string;
    jobId: string | null;
    op: string;
    provider: string;
    owner: Owner;
    createdAt: number;
    target?: string | null;
    traceId: string | null;
  }): number {
    const info = this.sql(
      'INSERT INTO intents (workspace_id, job_id, op, provider, owner_pid, owner_started, created_at, target, trace_id, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      intent.workspaceId,
      intent.jobId,
      intent.op,
      intent.provider,
      intent.owner.pid,
      intent.owner.started,
      intent.createdAt,
      intent.target ?? null,
      intent.traceId ?? null,
      this.actor,
    );
    return Number(info.lastInsertRowid);
  }

  /**
   * Takes the workspace for a put, export or remove: in one IMMEDIATE
   * transaction, refuses (WORKSPACE_BUSY) while a job runs or another live
   * lease is open, and journals the intent that is the lease. Checking at
   * entry only let a run start under a destroy that was already removing
   * the workspace (found by the concurrency suite).
   */
  leaseWorkspace(intent: {
    workspaceId: string;
    op: string;
    provider: string;
    owner: Owner;
    createdAt: number;
    target?: string | null;
    traceId: string | null;
  }): number {
    return this.atomically(() => {
      const ws = this.getWorkspace(intent.workspaceId);
      if (!ws) throw notFound(intent.workspaceId);
      if (ws.state === 'running') throw this.busyError(ws.id);
      const lease = this.liveLease(ws.id);
      if (lease) throw this.leaseBusyError(ws.id, lease);
      if (intent.op === 'remove') {
        // A fork being made holds no meta.json of its own yet: a removal now would reclaim the storage its chain is
        // built on, and the fork would report success over files that are gone (red team, session 10).
        const child = this.forkBeingMade(ws.id);
        if (child)
          throw new EngineError(
            'WORKSPACE_BUSY',
            `workspace ${ws.id} is busy: its fork ${child.workspaceId} is being made (process ${child.owner.pid}); nothing was removed`,
            { hint: 'wait for the fork to finish, then destroy it (and its forks) or this workspace again' },
          );
      }
      return this.openIntent({ ...intent, jobId: null });
    });
  }

  /**
   * Refuses, inside the transaction that records a fork of `parentId`, when the parent is being removed or is gone:
   * with the check in destroy's lease (leaseWorkspace), one of the two always sees the other.
   */
  refuseForkOfRemoved(parentId: string): void {
    const parent = this.getWorkspace(parentId);
    if (!parent || parent.state === 'destroyed') throw notFound(parentId);
    const lease = this.liveLease(parentId);
    if (lease?.op === 'remove') throw this.leaseBusyError(parentId, lease);
  }

  /** The create intent, still open and its process alive, of a fork of `parentId` being made. */
  private forkBeingMade(parentId: string): IntentRecord | undefined {
    const rows = this.sql(
      "SELECT i.* FROM intents i JOIN forks f ON f.child_id = i.workspace_id WHERE f.parent_id = ? AND i.op = 'create' AND i.settled_at IS NULL ORDER BY i.id",
    ).all(parentId) as Row[];
    return rows.map(toIntent).find((i) => isOwnerAlive(i.owner));
  }

  /**
   * Journals doctor's removal of what a provider still holds of a workspace recorded destroyed (or replaced by a
   * later one on another provider), in the transaction that reads its record: a create of the id (its record
   * inserted in one transaction, insertWorkspace) either comes first and is seen here, and nothing is removed, or
   * comes after and finds this lease live, and is refused busy. Returns the intent, or the record's state when it is
   * a live workspace on `provider`.
   */
  leaseDestroyedRecord(intent: {
    workspaceId: string;
    provider: string;
    owner: Owner;
    createdAt: number;
    traceId: string | null;
  }): { intentId: number } | { state: string } {
    return this.atomically(() => {
      const ws = this.getWorkspace(intent.workspaceId);
      // A live record on another provider is a later workspace: what `intent.provider` holds of the id is not it.
      if (ws !== undefined && ws.state !== 'destroyed' && ws.provider === intent.provider) return { state: ws.state };
      const lease = this.liveLease(intent.workspaceId);
      if (lease) throw this.leaseBusyError(intent.workspaceId, lease);
      return { intentId: this.openIntent({ ...intent, op: REMOVE_HELD_OP, jobId: null }) };
    });
  }

  /** An open put/export/remove intent on the workspace whose process is alive. */
  private liveLease(workspaceId: string): IntentRecord | undefined {
    const rows = this.sql('SELECT * FROM intents WHERE workspace_id = ? AND settled_at IS NULL ORDER BY id').all(workspaceId) as Row[];
    return rows.map(toIntent).find((i) => LEASING_OPS.includes(i.op) && isOwnerAlive(i.owner));
  }

  private leaseBusyError(workspaceId: string, lease: IntentRecord): EngineError {
    const what =
      lease.op === 'remove'
        ? 'a destroy'
        : lease.op === 'export'
          ? 'an export'
          : lease.op === REMOVE_HELD_OP
            ? "doctor's removal of what a provider kept of an earlier workspace of this id"
            : `a ${lease.op}`;
    return new EngineError('WORKSPACE_BUSY', `workspace ${workspaceId} is busy: ${what} is in progress (process ${lease.owner.pid})`, {
      hint: 'wait for it to finish, then try again',
    });
  }

  settleIntent(id: number, outcome: string, settledAt: number): void {
    this.sql('UPDATE intents SET settled_at = ?, outcome = ? WHERE id = ? AND settled_at IS NULL').run(settledAt, outcome, id);
  }

  openIntents(): IntentRecord[] {
    return (this.sql('SELECT * FROM intents WHERE settled_at IS NULL ORDER BY id').all() as Row[]).map(toIntent);
  }

  /** Inputs recorded at `destination` since `since` (doctor --repair proves an interrupted put's outcome with it). */
  inputRecordedSince(workspaceId: string, destination: string, since: number): boolean {
    return Boolean(this.sql('SELECT 1 FROM inputs WHERE workspace_id = ? AND destination = ? AND created_at >= ?').get(workspaceId, destination, since));
  }

  countIntents(): number {
    return Number((this.sql('SELECT COUNT(*) AS n FROM intents').get() as Row).n);
  }

  // ---- verification, receipts and supervision rules (#16) ----

  /** Records a job's verification block (JSON); written in the transaction of its terminal record. */
  recordVerification(jobId: string, block: unknown): void {
    this.sql('UPDATE jobs SET verification = ? WHERE id = ?').run(JSON.stringify(block), jobId);
  }

  /** The job's verification block as recorded, or null (no checks asked for, or an older job). */
  verificationOf(jobId: string): unknown {
    const row = this.sql('SELECT verification FROM jobs WHERE id = ?').get(jobId) as Row | undefined;
    return row?.verification ? (JSON.parse(String(row.verification)) as unknown) : null;
  }

  insertReceipt(receipt: ReceiptRow): void {
    this.sql('INSERT INTO job_receipts (job_id, workspace_id, version, sha256, document, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      receipt.jobId,
      receipt.workspaceId,
      receipt.version,
      receipt.sha256,
      receipt.document,
      receipt.createdAt,
    );
  }

  /** The job's receipt: the latest version, or the one asked for; undefined when there is none. */
  receiptOf(jobId: string, version?: number): ReceiptRow | undefined {
    const row = (
      version === undefined
        ? this.sql('SELECT * FROM job_receipts WHERE job_id = ? ORDER BY version DESC LIMIT 1').get(jobId)
        : this.sql('SELECT * FROM job_receipts WHERE job_id = ? AND version = ?').get(jobId, version)
    ) as Row | undefined;
    if (!row) return undefined;
    return {
      jobId: String(row.job_id),
      workspaceId: String(row.workspace_id),
      version: Number(row.version),
      sha256: String(row.sha256),
      document: String(row.document),
      createdAt: Number(row.created_at),
    };
  }

  /** Adds a rule (its canonical text), counting from the workspace's next job; false when the workspace already has it. */
  addRule(workspaceId: string, rule: string, at: number): boolean {
    return (
      this.sql(
        'INSERT OR IGNORE INTO workspace_rules (workspace_id, rule, added_at, counts_after_job) VALUES (?, ?, ?, (SELECT COALESCE(MAX(rowid), 0) FROM jobs WHERE workspace_id = ?))',
      ).run(workspaceId, rule, at, workspaceId).changes > 0
    );
  }

  removeRule(workspaceId: string, rule: string): boolean {
    return this.sql('DELETE FROM workspace_rules WHERE workspace_id = ? AND rule = ?').run(workspaceId, rule).changes > 0;
  }

  listRules(workspaceId: string): RuleRow[] {
    return (this.sql('SELECT * FROM workspace_rules WHERE workspace_id = ? ORDER BY id').all(workspaceId) as Row[]).map((row) => ({
      rule: String(row.rule),
      addedAt: Number(row.added_at),
      countsAfterJob: Number(row.counts_after_job),
      trippedAt: row.tripped_at === null ? null : Number(row.tripped_at),
      trippedByJob: row.tripped_by_job === null ? null : String(row.tripped_by_job),
    }));
  }

  tripRule(workspaceId: string, rule: string, jobId: string, at: number): void {
    this.sql('UPDATE workspace_rules SET tripped_at = ?, tripped_by_job = ? WHERE workspace_id = ? AND rule = ? AND tripped_at IS NULL').run(
      at,
      jobId,
      workspaceId,
      rule,
    );
  }

  /**
   * Untrips every rule and restarts their counting from the workspace's next
   * job. The mark is the workspace's highest jobs rowid, not a time (a job in
   * the same millisecond as a clear must not count); a later job of the
   * workspace always gets a higher rowid, its earlier rows being in the table.
   */
  clearRules(workspaceId: string): number {
    return this.sql(
      'UPDATE workspace_rules SET tripped_at = NULL, tripped_by_job = NULL, counts_after_job = (SELECT COALESCE(MAX(rowid), 0) FROM jobs WHERE workspace_id = ?) WHERE workspace_id = ?',
    ).run(workspaceId, workspaceId).changes;
  }

  recordRuleDecision(decision: {
    workspaceId: string;
    jobId: string | null;
    rule: string;
    decision: string;
    detail: string;
    at: number;
    traceId: string | null;
  }): void {
    this.sql('INSERT INTO rule_decisions (workspace_id, job_id, rule, decision, detail, at, trace_id) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      decision.workspaceId,
      decision.jobId,
      decision.rule,
      decision.decision,
      decision.detail,
      decision.at,
      decision.traceId,
    );
  }

  /** The workspace's rule decisions, newest last; at most `limit`, the latest ones. */
  ruleDecisions(workspaceId: string, limit = 20): RuleDecisionRow[] {
    const rows = this.sql('SELECT * FROM rule_decisions WHERE workspace_id = ? ORDER BY id DESC LIMIT ?').all(workspaceId, limit) as Row[];
    return rows.reverse().map((row) => ({
      jobId: row.job_id === null ? null : String(row.job_id),
      rule: String(row.rule),
      decision: String(row.decision),
      detail: String(row.detail),
      at: Number(row.at),
    }));
  }

  /** The workspace's latest finished jobs recorded after job rowid `afterJob`, newest first. */
  latestFinishedJobs(workspaceId: string, afterJob: number, limit: number): JobRecord[] {
    return (
      this.sql("SELECT * FROM jobs WHERE workspace_id = ? AND state = 'finished' AND rowid > ? ORDER BY finished_at DESC, rowid DESC LIMIT ?").all(
        workspaceId,
        afterJob,
        limit,
      ) as Row[]
    ).map(toJob);
  }
}

/** The stat errors that mean nothing is at a path any more (a file where the home was gives ENOTDIR), not that it could not be looked at. */
const GONE_CODES = new Set(['ENOENT', 'ENOTDIR', 'ELOOP']);

/** A file's device and inode; 'gone' when nothing is at the path; 'unknown' when the look itself failed (EACCES, EIO, ESTALE). */
function fileIdentity(path: string): { dev: number; ino: number } | 'gone' | 'unknown' {
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat ? { dev: stat.dev, ino: stat.ino } : 'gone';
  } catch (error) {
    return GONE_CODES.has((error as NodeJS.ErrnoException).code ?? '') ? 'gone' : 'unknown';
  }
}

/** Keeps the recorded path readable across many jobs: ready → running → ready collapses. */
function compactPath(path: WorkspaceState[]): WorkspaceState[] {
  const out: WorkspaceState[] = [];
  for (const state of path) {
    const n = out.length;
    if (n >= 2 && state === 'ready' && out[n - 1] === 'running' && out[n - 2] === 'ready') {
      out.pop();
      continue;
    }
    out.push(state);
  }
  return out;
}

/**
 * A verb checks that its workspace is live before its transaction; another
 * process may destroy it in between (seen in the concurrency soak: a run met
 * a destroy and read ILLEGAL_TRANSITION destroyed -> running). Inside the
 * transaction that race reads as what it is: the workspace is destroyed.
 */
function refuseDestroyed(ws: WorkspaceRecord): void {
  if (ws.state === 'destroyed') {
    throw new EngineError('WORKSPACE_DESTROYED', `workspace ${ws.id} is a destroyed workspace`, { hint: 'create a new one', action: nextAction('create') });
  }
}

function notFound(id: string): EngineError {
  return new EngineError('WORKSPACE_NOT_FOUND', `no workspace ${id}`, { hint: 'list the workspaces', action: nextAction('ls') });
}

/**
 * "job X is", "jobs X, Y are", or "a job is" when the workspace is recorded running but its job's record is not
 * read yet (one just starting): an empty list once read "jobs  are running" (red team, session 11).
 */
export function runningJobsSubject(ids: readonly string[]): string {
  if (ids.length === 0) return 'a job is';
  return ids.length === 1 ? `job ${ids[0]} is` : `jobs ${ids.join(', ')} are`;
}
