/** The edge of doctor --repair for snapshots: what is pending or applying, and whether a fork baseline's data verifies. It reads; it changes nothing. */
import type { EngineContext } from '../context.js';
import type { SnapshotFacts } from './plan-snapshot-repairs.js';
import { SnapshotRecords } from './snapshot-records.js';

export async function gatherSnapshotFacts(ctx: EngineContext): Promise<SnapshotFacts> {
  const store = ctx.store();
  const records = new SnapshotRecords(store);
  const pendingCheckpoints: SnapshotFacts['pendingCheckpoints'] = [];
  for (const cp of records.pendingCheckpoints()) {
    const ws = store.getWorkspace(cp.workspaceId);
    const live = ws && ws.state !== 'destroyed' ? ws : undefined;
    let expected = null;
    let verifies: boolean | null = null;
    const fork = cp.kind === 'fork-base' ? records.forkOf(cp.workspaceId) : undefined;
    const source = fork ? records.getCheckpoint(fork.parentCheckpointId) : undefined;
    if (live && fork && source?.digest) {
      expected = { fileCount: source.fileCount ?? 0, bytes: source.bytes ?? 0, digest: source.digest };
      try {
        const ops = (await ctx.provider(live.provider)).snapshots;
        verifies = ops ? await ops.verify(live.id, cp.id, source.digest) : null;
      } catch {
        verifies = null;
      }
    }
    pendingCheckpoints.push({ id: cp.id, workspaceId: cp.workspaceId, kind: cp.kind, provider: live?.provider ?? null, expected, verifies });
  }
  const outputs: SnapshotFacts['outputs'] = {};
  for (const o of records.applyingOutputs()) outputs[o.id] = { state: o.state, decision: o.decision, parentId: o.parentId, childId: o.childId };
  // Outputs named by dead settle intents that are no longer applying (settled or rolled back) are looked up too.
  for (const intent of store.openIntents()) {
    if (!intent.op.startsWith('settle') || intent.target === null) continue;
    try {
      const id = (JSON.parse(intent.target) as { output?: string }).output;
      const o = id === undefined ? undefined : records.getOutput(id);
      if (o) outputs[o.id] = { state: o.state, decision: o.decision, parentId: o.parentId, childId: o.childId };
    } catch {
      // Not a settle target: nothing to look up.
    }
  }
  return { pendingCheckpoints, outputs };
}
