/**
 * doctor --repair for snapshots (#14), planned purely from the facts the
 * edge gathered (gather-snapshot-facts.ts). A crash inside checkpoint,
 * restore, fork or settle leaves, at worst:
 *  - a checkpoint record still `pending`: never restorable; its record and
 *    whatever the provider made of it are removed (a fork's baseline whose
 *    data verifies against the fork's digest is finished instead);
 *  - an output `applying` a select or apply: rolled BACK, the parent restored
 *    to the checkpoint taken just before the settle changed it, the output
 *    left unconsumed, so it is never applied twice;
 *  - an output `applying` a release or discard: finished (the parent is
 *    never touched by them; a discard's destroy is repeated).
 * Nothing is touched in a workspace a live process is acting on.
 */
import type { TreeFacts } from './snapshot-ops.js';
import type { CheckpointKind, OutputState, SettleDecision } from './snapshot-records.js';
import type { DeadIntent, Diagnosis, Repair, RepairAction } from '../repair/plan-repairs.js';

export interface SnapshotFacts {
  pendingCheckpoints: Array<{
    id: string;
    workspaceId: string;
    kind: CheckpointKind;
    /** The workspace's provider; null when the workspace is gone from the store. */
    provider: string | null;
    /** A fork baseline: the facts it must hold (the fork's source checkpoint's), and whether its data verifies against them. */
    expected: TreeFacts | null;
    verifies: boolean | null;
  }>;
  outputs: Record<string, { state: OutputState; decision: SettleDecision | null; parentId: string; childId: string }>;
}

export type SnapshotRepairStep =
  | { kind: 'drop-checkpoint'; checkpointId: string; workspaceId: string; provider: string | null }
  | { kind: 'finish-checkpoint'; checkpointId: string; facts: TreeFacts }
  | { kind: 'roll-back-settle'; intentId: number; outputId: string; parentId: string; provider: string; undoId: string }
  | { kind: 'finish-settle'; intentId: number; outputId: string; decision: 'release' | 'discard'; childId: string }
  | { kind: 'abandon-settle-check'; intentId: number; checkpointId: string; workspaceId: string; provider: string | null };

type Settle = (outcome: string, reason: string) => Repair;
type Skip = (reason: string) => Repair;

export const SNAPSHOT_OPS: readonly string[] = ['checkpoint', 'restore', 'fork', 'settle-check', 'settle', 'settle-release', 'settle-discard'];

const step = (s: SnapshotRepairStep): RepairAction => ({ type: 'snapshot', step: s });

export function planSnapshotRepairs(d: Diagnosis): Repair[] {
  const repairs: Repair[] = [];
  for (const cp of d.snapshots?.pendingCheckpoints ?? []) {
    const base = { kind: 'snapshot' as const, target: `checkpoint ${cp.id} (incomplete, of workspace ${cp.workspaceId})`, workspaceId: cp.workspaceId };
    if (d.busy[cp.workspaceId]) {
      repairs.push({
        ...base,
        safe: false,
        reason: `${d.busy[cp.workspaceId]} is acting on workspace ${cp.workspaceId}; look again when it ends`,
        action: { type: 'none' },
      });
      continue;
    }
    if (cp.kind === 'fork-base' && cp.verifies === true && cp.expected) {
      repairs.push({
        ...base,
        safe: true,
        reason: "a fork's baseline whose fork was interrupted, but its data holds the fork's digest: record it valid",
        action: step({ kind: 'finish-checkpoint', checkpointId: cp.id, facts: cp.expected }),
      });
      continue;
    }
    repairs.push({
      ...base,
      safe: true,
      reason: 'a checkpoint whose process died before it was finished: it is never restored; remove its record and whatever the provider made of it',
      action: step({ kind: 'drop-checkpoint', checkpointId: cp.id, workspaceId: cp.workspaceId, provider: cp.provider }),
    });
  }
  return repairs;
}

/** A dead intent of a snapshot op (its workspace is not busy: plan-repairs checked). */
export function planSnapshotIntent(d: Diagnosis, dead: DeadIntent, settle: Settle, skip: Skip): Repair[] {
  const { intent } = dead;
  switch (intent.op) {
    case 'checkpoint':
      return [
        settle(
          'interrupted (a checkpoint never finished is never restored)',
          'its checkpoint never finished: settle it (the incomplete checkpoint is repaired on its own)',
        ),
      ];
    case 'restore':
      return [
        settle(
          `interrupted (the files of ${intent.workspaceId} may be part-restored: restore checkpoint ${intent.target ?? '?'} again)`,
          `the restore did not finish, so the workspace's files may be part-restored; settle it (restore checkpoint ${intent.target ?? '?'} again)`,
        ),
      ];
    case 'fork':
      return [settle('interrupted (each fork is settled by its own create intent)', 'each fork it made has its own create intent: settle this one')];
    case 'settle-check': {
      // A settle killed while its checks ran, before its lease: nothing of the parent changed, the output is sealed.
      let undo: string | undefined;
      try {
        undo = (JSON.parse(intent.target ?? '{}') as { undo?: string }).undo;
      } catch {
        undo = undefined;
      }
      if (undo === undefined) return [settle('interrupted before its lease (nothing changed)', 'it names no checkpoint: settle it')];
      return [
        {
          kind: 'snapshot',
          target: `checkpoint ${undo} (undo of a settle interrupted in its checks)`,
          workspaceId: intent.workspaceId,
          safe: true,
          reason: `its process (pid ${intent.owner.pid}) is gone before the settle changed anything: drop the checkpoint it took of ${intent.workspaceId} and settle the intent`,
          action: step({
            kind: 'abandon-settle-check',
            intentId: intent.id,
            checkpointId: undo,
            workspaceId: intent.workspaceId,
            provider: d.workspaces[intent.workspaceId]?.provider ?? null,
          }),
        },
      ];
    }
    default: {
      let target: { output?: string; decision?: SettleDecision; undo?: string } = {};
      try {
        target = JSON.parse(intent.target ?? '{}') as typeof target;
      } catch {
        // An unreadable target proves nothing: the skip below says so.
      }
      const out = target.output === undefined ? undefined : d.snapshots?.outputs[target.output];
      if (!out || !target.output) return [skip('its output cannot be found in the store')];
      if (out.state !== 'applying')
        return [
          settle(
            `${out.state === 'settled' ? `settled by ${out.decision}` : 'rolled back'} (output ${target.output} is ${out.state})`,
            `output ${target.output} is ${out.state}: settle it`,
          ),
        ];
      const base = { kind: 'snapshot' as const, target: `output ${target.output} (${out.decision} interrupted)`, workspaceId: intent.workspaceId };
      const gone = `its process (pid ${intent.owner.pid}) is gone`;
      if (out.decision === 'release' || out.decision === 'discard')
        return [
          {
            ...base,
            safe: true,
            reason: `${gone}; ${out.decision} never touches the parent: finish it${out.decision === 'discard' ? ` (destroy ${out.childId})` : ''} and record the output settled`,
            action: step({ kind: 'finish-settle', intentId: intent.id, outputId: target.output, decision: out.decision, childId: out.childId }),
          },
        ];
      const ws = d.workspaces[out.parentId];
      if (!target.undo || !ws) return [skip(`no checkpoint of ${out.parentId} from before the settle is recorded, so it cannot be rolled back`)];
      return [
        {
          ...base,
          safe: true,
          reason: `${gone}; the ${out.decision} may have changed part of ${out.parentId}: restore it to checkpoint ${target.undo} (taken just before) and leave the output unconsumed, to settle again`,
          action: step({
            kind: 'roll-back-settle',
            intentId: intent.id,
            outputId: target.output,
            parentId: out.parentId,
            provider: ws.provider,
            undoId: target.undo,
          }),
        },
      ];
    }
  }
}
