/**
 * The snapshot verbs' ids as fields (#14 review): a checkpoint, an output or
 * a fork baseline as a structured key finding whose `text` is the line
 * markdown shows, and whose fields carry the ids a caller would otherwise
 * have to cut out of that text. Absent facts are left out, never guessed.
 */
import type { StructuredFinding } from '../result/result-package.js';
import type { CheckpointRecord, ForkRecord, OutputRecord } from './snapshot-records.js';

type Facts = Pick<CheckpointRecord, 'id' | 'workspaceId' | 'label' | 'state'> & Partial<Pick<CheckpointRecord, 'fileCount' | 'bytes' | 'digest'>>;

export function checkpointFinding(text: string, c: Facts): StructuredFinding {
  return {
    kind: 'checkpoint',
    text,
    checkpoint_id: c.id,
    workspace_id: c.workspaceId,
    state: c.state,
    ...(c.label ? { label: c.label } : {}),
    ...(c.fileCount != null ? { file_count: c.fileCount } : {}),
    ...(c.bytes != null ? { bytes: c.bytes } : {}),
    ...(c.digest ? { digest: c.digest } : {}),
  };
}

export function outputFinding(
  text: string,
  o: Pick<OutputRecord, 'id' | 'childId' | 'parentId' | 'sealCheckpointId' | 'proposalDigest' | 'changes' | 'state' | 'decision'>,
): StructuredFinding {
  return {
    kind: 'output',
    text,
    output_id: o.id,
    fork_id: o.childId,
    parent_id: o.parentId,
    seal_checkpoint_id: o.sealCheckpointId,
    proposal_digest: o.proposalDigest,
    changes: o.changes.length,
    state: o.state,
    ...(o.decision ? { decision: o.decision } : {}),
  };
}

export function forkBaselineFinding(text: string, f: Pick<ForkRecord, 'parentId' | 'parentCheckpointId' | 'parentDigest'>): StructuredFinding {
  return { kind: 'fork-baseline', text, parent_id: f.parentId, checkpoint_id: f.parentCheckpointId, digest: f.parentDigest };
}
