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
  /** restore: the checkpoint put back, and when it was taken; `unfinished` when it failed or its process died (part may be back). */
  checkpointId?: string;
  unfinished?: true;
  checkpointTakenAt?: number;
  /** settle: the output and its decision (select or apply), and the paths it changed. */
  outputId?: string;
  decision?: string;
  paths?: string[];
}

/**
 * The restores and settles (select, apply) of `workspaceId` begun by
 * `until`, oldest first. A restore counts whatever became of it: one that
 * failed, or whose process died and doctor settled, may have put back part
 * or all of the checkpoint (a red team's killed restore, repaired, went
 * unnamed). A settle counts once it took its output in; one rolled back left
 * the files as they were.
 */
export function readTreeChanges(store: SqliteStore, workspaceId: string, until: number): TreeChangeRecord[] {
  // Puts are read too and passed over below: the op list is intents_file_changes' own, so this read searches that
  // partial index instead of scanning every intent of the home (migrations.ts).
  const rows = store
    .statement(
      "SELECT op, target, created_at, settled_at, outcome FROM intents WHERE workspace_id = ? AND op IN ('put', 'restore', 'settle') AND created_at <= ? ORDER BY created_at, id",
    )
    .all(workspaceId, until) as Array<{ op: string; target: string | null; created_at: number; settled_at: number | null; outcome: string | null }>;
  const changes: TreeChangeRecord[] = [];
  for (const row of rows) {
    if (row.op === 'restore' && row.target !== null) {
      const cp = store.statement('SELECT created_at FROM checkpoints WHERE id = ?').get(row.target) as { created_at: number } | undefined;
      changes.push({
        kind: 'restore',
        at: row.settled_at ?? row.created_at,
        checkpointId: row.target,
        ...(row.outcome === 'done' ? {} : { unfinished: true }),
        ...(cp ? { checkpointTakenAt: cp.created_at } : {}),
      });
    }
    const settled = /^settled: (select|apply)$/.exec(row.outcome ?? '');
    if (row.op === 'settle' && settled && row.target !== null) {
      const target = JSON.parse(row.target) as { output?: string };
      const out = store.statement('SELECT changes FROM outputs WHERE id = ?').get(target.output ?? '') as { changes: string } | undefined;
      const paths = out ? (JSON.parse(out.changes) as Array<{ path: string }>).map((c) => c.path) : undefined;
      changes.push({
        kind: 'settle',
        at: row.settled_at ?? row.created_at,
        outputId: target.output ?? '?',
        decision: settled[1]!,
        ...(paths ? { paths } : {}),
      });
    }
  }
  return changes;
}

/** How a receipt names a change. */
export function describeTreeChange(change: TreeChangeRecord): string {
  return change.kind === 'restore'
    ? `restore ${change.checkpointId}${change.unfinished ? ' (unfinished)' : ''}`
    : `settle ${change.outputId} ${change.decision}`;
}

/**
 * True when something other than a job may have changed the workspace's
 * files at or after `since`: a put (an input recorded, or a put begun, which
 * may have written part), a restore or a settle begun. An export after such
 * a write is no job's leaving (a red team's `put --overwrite` after the last
 * job put forged bytes under that job's receipt).
 */
export function filesChangedBesidesJobsSince(store: SqliteStore, workspaceId: string, since: number): boolean {
  const intent = store
    .statement("SELECT 1 FROM intents WHERE workspace_id = ? AND op IN ('put', 'restore', 'settle') AND created_at >= ? LIMIT 1")
    .get(workspaceId, since);
  const input = store.statement('SELECT 1 FROM inputs WHERE workspace_id = ? AND created_at >= ? LIMIT 1').get(workspaceId, since);
  return intent !== undefined || input !== undefined;
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
