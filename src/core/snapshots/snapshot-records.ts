/**
 * The store's snapshot records (#14): checkpoints, fork links, sealed
 * outputs and the merge gate's decisions. The provider holds the bytes; these
 * rows are the registry a restart trusts: a checkpoint is restorable only
 * once it reads `valid`, and an output is applied only by the one caller
 * whose transaction moved it from `sealed` to `applying`.
 */
import type { SqliteStore } from '../store/sqlite-store.js';
import type { Row } from '../store/records.js';
import type { TreeChange, TreeFacts } from './snapshot-ops.js';

/** `user`: made by checkpoint; `fork-source`: taken of a parent by fork; `fork-base`: a child's baseline; `seal`: an output's frozen bytes; `undo`: a parent before a settle changed it. */
export type CheckpointKind = 'user' | 'fork-source' | 'fork-base' | 'seal' | 'undo';
/** `pending` until the provider finished it (a crash leaves it pending: never restorable); `invalid` once its data failed to verify. */
export type CheckpointState = 'pending' | 'valid' | 'consumed' | 'invalid';

export interface CheckpointRecord {
  id: string;
  workspaceId: string;
  kind: CheckpointKind;
  label: string | null;
  state: CheckpointState;
  createdAt: number;
  fileCount: number | null;
  bytes: number | null;
  digest: string | null;
  consumedAt: number | null;
}

export interface ForkRecord {
  childId: string;
  parentId: string;
  /** The parent's checkpoint the child was made from: the parent's side of the baseline. */
  parentCheckpointId: string;
  parentDigest: string;
  /** The child's own checkpoint of the same state: what seal compares the child to. */
  childBaseId: string;
  createdAt: number;
}

export type SettleDecision = 'select' | 'apply' | 'release' | 'discard';
/** `applying`: the decision is journalled and its changes may be part-made; repair finishes it. */
export type OutputState = 'sealed' | 'applying' | 'settled';

export interface OutputRecord {
  id: string;
  childId: string;
  parentId: string;
  sealCheckpointId: string;
  changes: TreeChange[];
  proposalDigest: string;
  state: OutputState;
  decision: SettleDecision | null;
  createdAt: number;
  settledAt: number | null;
}

export interface ReviewDecision {
  reviewer: string;
  verdict: 'allow' | 'deny';
  reason: string;
  /** The paths the verdict is about (all of the proposal's for an allow, the offending ones for a deny). */
  paths: string[];
  kinds: string[];
}

/** A workspace's merge gate: the built-in reviewers and their settings. */
export interface ReviewPolicy {
  denyPaths: string[];
  maxFiles: number | null;
  maxBytes: number | null;
}

const toCheckpoint = (row: Row): CheckpointRecord => ({
  id: String(row.id),
  workspaceId: String(row.workspace_id),
  kind: row.kind as CheckpointKind,
  label: row.label === null ? null : String(row.label),
  state: row.state as CheckpointState,
  createdAt: Number(row.created_at),
  fileCount: row.file_count === null ? null : Number(row.file_count),
  bytes: row.bytes === null ? null : Number(row.bytes),
  digest: row.digest === null ? null : String(row.digest),
  consumedAt: row.consumed_at === null ? null : Number(row.consumed_at),
});

const toFork = (row: Row): ForkRecord => ({
  childId: String(row.child_id),
  parentId: String(row.parent_id),
  parentCheckpointId: String(row.parent_checkpoint_id),
  parentDigest: String(row.parent_digest),
  childBaseId: String(row.child_base_id),
  createdAt: Number(row.created_at),
});

const toOutput = (row: Row): OutputRecord => ({
  id: String(row.id),
  childId: String(row.child_id),
  parentId: String(row.parent_id),
  sealCheckpointId: String(row.seal_checkpoint_id),
  changes: JSON.parse(String(row.changes)) as TreeChange[],
  proposalDigest: String(row.proposal_digest),
  state: row.state as OutputState,
  decision: row.decision === null ? null : (row.decision as SettleDecision),
  createdAt: Number(row.created_at),
  settledAt: row.settled_at === null ? null : Number(row.settled_at),
});

export class SnapshotRecords {
  private readonly store: SqliteStore;
  constructor(store: SqliteStore) {
    this.store = store;
  }

  addCheckpoint(c: { id: string; workspaceId: string; kind: CheckpointKind; label: string | null; createdAt: number }): void {
    this.store
      .statement("INSERT INTO checkpoints (id, workspace_id, kind, label, state, created_at) VALUES (?, ?, ?, ?, 'pending', ?)")
      .run(c.id, c.workspaceId, c.kind, c.label, c.createdAt);
  }

  finishCheckpoint(id: string, facts: TreeFacts): void {
    this.store
      .statement("UPDATE checkpoints SET state = 'valid', file_count = ?, bytes = ?, digest = ? WHERE id = ? AND state = 'pending'")
      .run(facts.fileCount, facts.bytes, facts.digest, id);
  }

  markCheckpoint(id: string, state: 'invalid'): void {
    this.store.statement('UPDATE checkpoints SET state = ? WHERE id = ?').run(state, id);
  }

  /** Consumes a valid checkpoint once: false when another caller consumed it first. */
  consumeCheckpoint(id: string, at: number): boolean {
    return this.store.statement("UPDATE checkpoints SET state = 'consumed', consumed_at = ? WHERE id = ? AND state = 'valid'").run(at, id).changes === 1;
  }

  deleteCheckpoint(id: string): void {
    this.store.statement('DELETE FROM checkpoints WHERE id = ?').run(id);
  }

  getCheckpoint(id: string): CheckpointRecord | undefined {
    const row = this.store.statement('SELECT * FROM checkpoints WHERE id = ?').get(id) as Row | undefined;
    return row ? toCheckpoint(row) : undefined;
  }

  checkpointsOf(workspaceId: string, kinds?: CheckpointKind[]): CheckpointRecord[] {
    const rows = (this.store.statement('SELECT * FROM checkpoints WHERE workspace_id = ? ORDER BY created_at, id').all(workspaceId) as Row[]).map(toCheckpoint);
    return kinds ? rows.filter((c) => kinds.includes(c.kind)) : rows;
  }

  pendingCheckpoints(): CheckpointRecord[] {
    return (this.store.statement("SELECT * FROM checkpoints WHERE state = 'pending' ORDER BY created_at").all() as Row[]).map(toCheckpoint);
  }

  addFork(f: ForkRecord): void {
    this.store
      .statement('INSERT INTO forks (child_id, parent_id, parent_checkpoint_id, parent_digest, child_base_id, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(f.childId, f.parentId, f.parentCheckpointId, f.parentDigest, f.childBaseId, f.createdAt);
  }

  forkOf(childId: string): ForkRecord | undefined {
    const row = this.store.statement('SELECT * FROM forks WHERE child_id = ?').get(childId) as Row | undefined;
    return row ? toFork(row) : undefined;
  }

  childrenOf(parentId: string): ForkRecord[] {
    return (this.store.statement('SELECT * FROM forks WHERE parent_id = ? ORDER BY created_at, child_id').all(parentId) as Row[]).map(toFork);
  }

  addOutput(o: Omit<OutputRecord, 'state' | 'decision' | 'settledAt'>): void {
    this.store
      .statement(
        "INSERT INTO outputs (id, child_id, parent_id, seal_checkpoint_id, changes, proposal_digest, state, created_at) VALUES (?, ?, ?, ?, ?, ?, 'sealed', ?)",
      )
      .run(o.id, o.childId, o.parentId, o.sealCheckpointId, JSON.stringify(o.changes), o.proposalDigest, o.createdAt);
  }

  getOutput(id: string): OutputRecord | undefined {
    const row = this.store.statement('SELECT * FROM outputs WHERE id = ?').get(id) as Row | undefined;
    return row ? toOutput(row) : undefined;
  }

  outputsOf(workspaceId: string): OutputRecord[] {
    return (
      this.store.statement('SELECT * FROM outputs WHERE child_id = ? OR parent_id = ? ORDER BY created_at, id').all(workspaceId, workspaceId) as Row[]
    ).map(toOutput);
  }

  applyingOutputs(): OutputRecord[] {
    return (this.store.statement("SELECT * FROM outputs WHERE state = 'applying' ORDER BY created_at").all() as Row[]).map(toOutput);
  }

  /** The one transition that decides: sealed → applying with the decision. False when another caller decided first. */
  beginSettle(id: string, decision: SettleDecision): boolean {
    return this.store.statement("UPDATE outputs SET state = 'applying', decision = ? WHERE id = ? AND state = 'sealed'").run(decision, id).changes === 1;
  }

  /** Rolls an interrupted or failed select/apply back to unconsumed (its parent was restored first). */
  abortSettle(id: string): void {
    this.store.statement("UPDATE outputs SET state = 'sealed', decision = NULL WHERE id = ? AND state = 'applying'").run(id);
  }

  finishSettle(id: string, at: number): void {
    this.store.statement("UPDATE outputs SET state = 'settled', settled_at = ? WHERE id = ? AND state = 'applying'").run(at, id);
  }

  recordReviews(outputId: string, workspaceId: string, proposalDigest: string, decisions: ReviewDecision[], at: number): void {
    for (const d of decisions) {
      this.store
        .statement(
          'INSERT INTO reviews (output_id, workspace_id, proposal_digest, reviewer, verdict, reason, paths, kinds, decided_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(outputId, workspaceId, proposalDigest, d.reviewer, d.verdict, d.reason, JSON.stringify(d.paths), JSON.stringify(d.kinds), at);
    }
  }

  reviewsOf(outputId: string): Array<ReviewDecision & { decidedAt: number }> {
    return (this.store.statement('SELECT * FROM reviews WHERE output_id = ? ORDER BY id').all(outputId) as Row[]).map((row) => ({
      reviewer: String(row.reviewer),
      verdict: row.verdict as 'allow' | 'deny',
      reason: String(row.reason),
      paths: JSON.parse(String(row.paths)) as string[],
      kinds: JSON.parse(String(row.kinds)) as string[],
      decidedAt: Number(row.decided_at),
    }));
  }

  reviewPolicy(workspaceId: string): ReviewPolicy | null {
    const row = this.store.statement('SELECT review_policy FROM workspaces WHERE id = ?').get(workspaceId) as Row | undefined;
    return row?.review_policy ? (JSON.parse(String(row.review_policy)) as ReviewPolicy) : null;
  }

  setReviewPolicy(workspaceId: string, policy: ReviewPolicy | null): void {
    this.store.statement('UPDATE workspaces SET review_policy = ? WHERE id = ?').run(policy === null ? null : JSON.stringify(policy), workspaceId);
  }
}
