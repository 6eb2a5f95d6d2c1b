/**
 * What changed a workspace's files other than its own jobs, for a job's
 * receipt (#16): restores and settled outputs (select, apply) recorded
 * before the job started, and the fork its files began as. A receipt's
 * inputs are the digests of what was PUT; after a restore or a settle the
 * file the job ran on may be another one (a new user's receipt named the
 * buggy file of a prepare as the input of a job that ran on the settled
 * fix). The receipt does not hash the workspace at the job's start (that
 * would cost a walk of every input per job); it names these changes, and
 * marks each input one of them may have replaced.
 */
import type { SqliteStore } from '../store/sqlite-store.js';

export interface TreeChangeRecord {
  kind: 'restore' | 'settle';
  /** When the change was made (the intent's settlement). */
  at: number;
  /** restore: the checkpoint put back, and when it was taken. */
  checkpointId?: string;
  checkpointTakenAt?: number;
  /** settle: the output and its decision (select or apply), and the paths it changed. */
  outputId?: string;
  decision?: string;
  paths?: string[];
}

/** The restores and settles (select, apply) of `workspaceId` that were done by `until`, oldest first. */
export function readTreeChanges(store: SqliteStore, workspaceId: string, until: number): TreeChangeRecord[] {
  const rows = store
    .statement(
      "SELECT op, target, settled_at, outcome FROM intents WHERE workspace_id = ? AND op IN ('restore', 'settle') AND settled_at IS NOT NULL AND settled_at <= ? ORDER BY settled_at, id",
    )
    .all(workspaceId, until) as Array<{ op: string; target: string | null; settled_at: number; outcome: string | null }>;
  const changes: TreeChangeRecord[] = [];
  for (const row of rows) {
    if (row.op === 'restore' && row.outcome === 'done' && row.target !== null) {
      const cp = store.statement('SELECT created_at FROM checkpoints WHERE id = ?').get(row.target) as { created_at: number } | undefined;
      changes.push({ kind: 'restore', at: row.settled_at, checkpointId: row.target, ...(cp ? { checkpointTakenAt: cp.created_at } : {}) });
    }
    const settled = /^settled: (select|apply)$/.exec(row.outcome ?? '');
    if (row.op === 'settle' && settled && row.target !== null) {
      const target = JSON.parse(row.target) as { output?: string };
      const out = store.statement('SELECT changes FROM outputs WHERE id = ?').get(target.output ?? '') as { changes: string } | undefined;
      const paths = out ? (JSON.parse(out.changes) as Array<{ path: string }>).map((c) => c.path) : undefined;
      changes.push({ kind: 'settle', at: row.settled_at, outputId: target.output ?? '?', decision: settled[1]!, ...(paths ? { paths } : {}) });
    }
  }
  return changes;
}

/** How a receipt names a change. */
export function describeTreeChange(change: TreeChangeRecord): string {
  return change.kind === 'restore' ? `restore ${change.checkpointId}` : `settle ${change.outputId} ${change.decision}`;
}

/**
 * The first change after an input's put that may have replaced it, or null.
 * A restore puts back a checkpoint's files: an input put after that
 * checkpoint was taken is gone or other (one put before it is as the
 * checkpoint held it). A settle changed exactly its output's paths: an input
 * at, under or above one of them may be other; unknown paths count as all.
 */
export function supersedingChange(input: { destination: string; createdAt: number }, changes: readonly TreeChangeRecord[]): TreeChangeRecord | null {
  const d = input.destination.replace(/^\.?\/+/, '').replace(/\/+$/, '');
  const overlaps = (p: string) => d === '' || p === d || p.startsWith(`${d}/`) || d.startsWith(`${p}/`);
  for (const change of changes) {
    if (change.at < input.createdAt) continue;
    if (change.kind === 'restore' && (change.checkpointTakenAt === undefined || change.checkpointTakenAt <= input.createdAt)) return change;
    if (change.kind === 'settle' && (change.paths === undefined || change.paths.some(overlaps))) return change;
  }
  return null;
}
