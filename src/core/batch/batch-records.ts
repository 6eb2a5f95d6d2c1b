/**
 * The store's batch records (#16): a group and its members. Kept in its own
 * file, like the snapshot records, so the store does not grow with every
 * area's queries. The driver's identity is a column of the group: whoever
 * holds it (a live process) is the only one that launches or cancels; a
 * dead one is replaced by the next caller through `adopt`, a compare-and-set.
 */
import type { Owner } from '../store/owner.js';
import type { Row } from '../store/records.js';
import type { SqliteStore } from '../store/sqlite-store.js';
import type { ResultStatus } from '../status.js';
import type { Strategy } from './join.js';

/** running: the join has not decided; finished: decided and cleaned up (the status is final). */
export type GroupState = 'running' | 'finished';

/**
 * queued: not started; launching: its job id is chosen and the run is being
 * made (a record may or may not exist); running: its job is recorded; ended:
 * its job is terminal; skipped: it never started (cancelled before its turn,
 * or its launch was refused: the note says which).
 */
export type MemberState = 'queued' | 'launching' | 'running' | 'ended' | 'skipped';

export interface CleanupReport {
  /** Milliseconds from the deciding job's recorded end until every stop returned with its job's record terminal (null: nothing had to be stopped, or a loser outlived the cleanup timeout). */
  gone_ms: number | null;
  stopped: string[];
  never_started: number;
  /** What gone_ms counts from: the deciding job's end (the default, and older records), or the cancel, timeout or signal that ended the batch. */
  after?: 'decider' | 'cancel' | 'timeout' | 'signal';
  /** A loser still running when the cleanup timeout ran out, a stop that failed, or a fork that could not be destroyed: named with why. */
  errors: string[];
  /** The forks the batch made, as it settled (absent in a batch with none, and in older records, which kept every fork). */
  forks?: ForkReport;
}

/** What became of the batch's forks when it settled (batch-forks.ts): each destroyed one with what its provider removed, each kept one with why. */
export interface ForkReport {
  destroyed: Array<{ workspace_id: string; member: string; removed: string[]; unverified: string[] }>;
  kept: Array<{ workspace_id: string; member: string; why: string }>;
}

export interface GroupRecord {
  id: string;
  strategy: Strategy;
  quorum: number | null;
  concurrency: number;
  timeoutMs: number | null;
  cleanupTimeoutMs: number;
  /** Keep every fork the batch made; otherwise the forks that hold no answer are destroyed when it settles (batch-forks.ts). */
  keepForks: boolean;
  createdAt: number;
  state: GroupState;
  status: ResultStatus | null;
  summary: string | null;
  /** The winners' member indices in finish order, fixed when the join decided (null before). */
  winners: number[] | null;
  driver: Owner | null;
  cancelRequestedAt: number | null;
  decidedAt: number | null;
  finishedAt: number | null;
  cleanup: CleanupReport | null;
}

export interface MemberRecord {
  groupId: string;
  index: number;
  name: string;
  workspaceId: string | null;
  forkOf: string | null;
  argv: string[];
  state: MemberState;
  jobId: string | null;
  /** Only for a member that never started (skipped) or was lost (ended, its job's process gone: drive-batch.ts): its status; a started member's status is its job's. */
  status: ResultStatus | null;
  endedAt: number | null;
  note: string | null;
}

export interface NewMember {
  name: string;
  workspaceId: string | null;
  forkOf: string | null;
  argv: string[];
}

function groupOf(row: Row): GroupRecord {
  return {
    id: row.id as string,
    strategy: row.strategy as Strategy,
    quorum: (row.quorum as number | null) ?? null,
    concurrency: row.concurrency as number,
    timeoutMs: (row.timeout_ms as number | null) ?? null,
    cleanupTimeoutMs: row.cleanup_timeout_ms as number,
    keepForks: row.keep_forks !== 0,
    createdAt: row.created_at as number,
    state: row.state as GroupState,
    status: (row.status as ResultStatus | null) ?? null,
    summary: (row.summary as string | null) ?? null,
    winners: row.winners === null || row.winners === undefined ? null : (JSON.parse(row.winners as string) as number[]),
    driver: row.driver_pid === null ? null : { pid: row.driver_pid as number, started: (row.driver_started as string | null) ?? null },
    cancelRequestedAt: (row.cancel_requested_at as number | null) ?? null,
    decidedAt: (row.decided_at as number | null) ?? null,
    finishedAt: (row.finished_at as number | null) ?? null,
    cleanup: row.cleanup === null ? null : (JSON.parse(row.cleanup as string) as CleanupReport),
  };
}

function memberOf(row: Row): MemberRecord {
  return {
    groupId: row.group_id as string,
    index: row.idx as number,
    name: row.name as string,
    workspaceId: (row.workspace_id as string | null) ?? null,
    forkOf: (row.fork_of as string | null) ?? null,
    argv: JSON.parse(row.argv as string) as string[],
    state: row.state as MemberState,
    jobId: (row.job_id as string | null) ?? null,
    status: (row.status as ResultStatus | null) ?? null,
    endedAt: (row.ended_at as number | null) ?? null,
    note: (row.note as string | null) ?? null,
  };
}

export class BatchRecords {
  private readonly store: SqliteStore;
  constructor(store: SqliteStore) {
    this.store = store;
  }

  /** The group and every member in one commit: a batch is either wholly recorded or not at all. */
  insertGroup(
    group: Omit<GroupRecord, 'state' | 'status' | 'summary' | 'winners' | 'cancelRequestedAt' | 'decidedAt' | 'finishedAt' | 'cleanup'>,
    members: NewMember[],
    traceId: string,
  ): void {
    this.store.atomically(() => {
      this.store
        .statement(
          `INSERT INTO batch_groups (id, strategy, quorum, concurrency, timeout_ms, cleanup_timeout_ms, keep_forks, created_at, state, driver_pid, driver_started, trace_id)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'running', ?, ?, ?)`,
        )
        .run(
          group.id,
          group.strategy,
          group.quorum,
          group.concurrency,
          group.timeoutMs,
          group.cleanupTimeoutMs,
          group.keepForks ? 1 : 0,
          group.createdAt,
          group.driver?.pid ?? null,
          group.driver?.started ?? null,
          traceId,
        );
      const insert = this.store.statement(
        `INSERT INTO batch_members (group_id, idx, name, workspace_id, fork_of, argv, state) VALUES (?, ?, ?, ?, ?, ?, 'queued')`,
      );
      members.forEach((m, i) => insert.run(group.id, i, m.name, m.workspaceId, m.forkOf, JSON.stringify(m.argv)));
    });
  }

  group(id: string): GroupRecord | undefined {
    const row = this.store.statement('SELECT * FROM batch_groups WHERE id = ?').get(id) as Row | undefined;
    return row ? groupOf(row) : undefined;
  }

  members(groupId: string): MemberRecord[] {
    return (this.store.statement('SELECT * FROM batch_members WHERE group_id = ? ORDER BY idx').all(groupId) as Row[]).map(memberOf);
  }

  /** The newest `limit` groups with their member counts, and how many there are in all (the dashboard's list, #21). */
  recentGroups(limit: number): { total: number; groups: Array<GroupRecord & { members: number }> } {
    const total = (this.store.statement('SELECT COUNT(*) AS n FROM batch_groups').get() as { n: number }).n;
    const rows = this.store
      .statement(
        'SELECT g.*, (SELECT COUNT(*) FROM batch_members m WHERE m.group_id = g.id) AS member_count FROM batch_groups g ORDER BY g.created_at DESC, g.id LIMIT ?',
      )
      .all(limit) as Row[];
    return { total, groups: rows.map((row) => ({ ...groupOf(row), members: row.member_count as number })) };
  }

  /** Groups not finished: doctor and status name the ones whose driver is gone. */
  unfinishedGroups(): GroupRecord[] {
    return (this.store.statement(`SELECT * FROM batch_groups WHERE state = 'running' ORDER BY created_at`).all() as Row[]).map(groupOf);
  }

  /**
   * Takes the driver's seat if it is still held by `expected` (null: no
   * driver, or the one the caller saw die). True when this caller now drives;
   * false when another process took it first.
   */
  adopt(groupId: string, expected: Owner | null, next: Owner): boolean {
    const changed = this.store
      .statement(
        `UPDATE batch_groups SET driver_pid = ?, driver_started = ?
         WHERE id = ? AND state = 'running' AND driver_pid IS ? AND driver_started IS ?`,
      )
      .run(next.pid, next.started, groupId, expected?.pid ?? null, expected?.started ?? null).changes;
    return changed === 1;
  }

  /** Gives the seat up (a driver whose caller stopped waiting): the next batch wait adopts it without waiting for this process to die. */
  release(groupId: string, owner: Owner): void {
    this.store
      .statement(`UPDATE batch_groups SET driver_pid = NULL, driver_started = NULL WHERE id = ? AND driver_pid = ? AND driver_started IS ?`)
      .run(groupId, owner.pid, owner.started);
  }

  requestCancel(groupId: string, at: number): void {
    this.store.statement(`UPDATE batch_groups SET cancel_requested_at = COALESCE(cancel_requested_at, ?) WHERE id = ?`).run(at, groupId);
  }

  /** The decision, once: status, summary and winners are fixed here, so every later reader (and a successor driver) sees the same. */
  markDecided(groupId: string, decision: { status: ResultStatus; summary: string; winners: number[] }, at: number): void {
    this.store
      .statement(`UPDATE batch_groups SET status = ?, summary = ?, winners = ?, decided_at = ? WHERE id = ? AND decided_at IS NULL`)
      .run(decision.status, decision.summary, JSON.stringify(decision.winners), at, groupId);
  }

  finish(groupId: string, cleanup: CleanupReport, at: number): void {
    this.store.statement(`UPDATE batch_groups SET state = 'finished', cleanup = ?, finished_at = ? WHERE id = ?`).run(JSON.stringify(cleanup), at, groupId);
  }

  setMember(
    groupId: string,
    index: number,
    change: { state: MemberState; jobId?: string; workspaceId?: string; note?: string; status?: ResultStatus; endedAt?: number },
  ): void {
    this.store
      .statement(
        `UPDATE batch_members SET state = ?, job_id = COALESCE(?, job_id), workspace_id = COALESCE(?, workspace_id), note = COALESCE(?, note),
           status = COALESCE(?, status), ended_at = COALESCE(?, ended_at)
         WHERE group_id = ? AND idx = ?`,
      )
      .run(change.state, change.jobId ?? null, change.workspaceId ?? null, change.note ?? null, change.status ?? null, change.endedAt ?? null, groupId, index);
  }
}
