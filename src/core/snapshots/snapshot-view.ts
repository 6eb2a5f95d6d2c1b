/**
 * What inspect shows of a workspace's snapshots (#14): its checkpoints with
 * their state (valid, consumed, invalid, or incomplete when a checkpoint was
 * interrupted), its fork parent and baseline, its forks, and the outputs
 * sealed from it or into it with how each was settled. Read from the store
 * only: inspect asks the provider nothing more for it.
 */
import type { SqliteStore, WorkspaceRecord } from '../store/sqlite-store.js';
import type { KeyFinding } from '../result/result-package.js';
import { checkpointFinding, forkBaselineFinding, outputFinding } from './snapshot-findings.js';
import type { SnapshotOps } from './snapshot-ops.js';
import { SnapshotRecords, type CheckpointRecord } from './snapshot-records.js';

const SHOWN = 20;

function describeCheckpoint(c: CheckpointRecord): string {
  const state = c.state === 'pending' ? 'incomplete (interrupted: never restored)' : c.state;
  const facts = c.fileCount === null ? '' : `, ${c.fileCount} file(s), ${c.bytes} bytes, ${c.digest}`;
  return `checkpoint ${c.id}${c.label ? ` (${c.label})` : ''}: ${state}, ${new Date(c.createdAt).toISOString()}${facts}`;
}

/** With `ops`, each shown valid checkpoint is verified first: one whose data is gone or does not verify is recorded and listed invalid. */
export async function snapshotFindings(store: SqliteStore, ws: WorkspaceRecord, ops: SnapshotOps | undefined): Promise<KeyFinding[]> {
  const records = new SnapshotRecords(store);
  const out: KeyFinding[] = [];
  const checkpoints = records.checkpointsOf(ws.id, ['user']);
  for (const c of checkpoints.slice(-SHOWN)) {
    if (ops && c.state === 'valid' && !(await ops.verify(ws.id, c.id, c.digest ?? '').catch(() => false))) {
      records.markCheckpoint(c.id, 'invalid');
      c.state = 'invalid';
    }
    out.push(checkpointFinding(describeCheckpoint(c), c));
  }
  if (checkpoints.length > SHOWN) out.push(`… and ${checkpoints.length - SHOWN} earlier checkpoint(s)`);
  const fork = records.forkOf(ws.id);
  if (fork)
    out.push(forkBaselineFinding(`fork of ${fork.parentId}: baseline checkpoint ${fork.parentCheckpointId} of the parent, digest ${fork.parentDigest}`, fork));
  const children = records.childrenOf(ws.id);
  if (children.length) out.push(`forks: ${children.map((c) => `${c.childId} (${store.getWorkspace(c.childId)?.state ?? 'gone'})`).join(', ')}`);
  for (const o of records.outputsOf(ws.id).slice(-SHOWN)) {
    const how =
      o.state === 'sealed'
        ? 'sealed, not settled'
        : o.state === 'applying'
          ? `${o.decision} interrupted (doctor's repair settles it)`
          : `settled by ${o.decision}`;
    out.push(outputFinding(`output ${o.id} of ${o.childId} into ${o.parentId}: ${o.changes.length} change(s), ${how}`, o));
  }
  return out;
}
