/**
 * The snapshot seam (#14): what a provider whose capabilities list the
 * `snapshots` feature offers the engine. The engine owns the records
 * (checkpoint ids, labels, fork links, outputs, settlement); the provider
 * owns the bytes and the mechanism, and must make every operation cost
 * grow with what changed, not with the tree.
 *
 * Defined before either side was built so the engine (with the fake's
 * in-memory implementation) and the native mechanism could be written at
 * the same time against one contract.
 */
import type { ReadStream, WorkspaceDescriptor, WorkspaceSpec } from '../provider.js';

/** One path's change between a checkpoint and the workspace's files now. */
export interface TreeChange {
  /** Workspace-relative, `/`-separated, no leading `./`. */
  path: string;
  kind: 'create' | 'modify' | 'delete';
  /** The entry's type now; for a delete, the type it had. */
  type: 'file' | 'directory' | 'symlink';
  /** Bytes of the new content (a symlink: its target's length); 0 for a directory or a delete. */
  size: number;
  /** Hex sha256 of the new content (a symlink: of its target text); null for a directory or a delete. */
  sha256: string | null;
  /** Permission bits of the entry now; null for a delete. */
  mode: number | null;
  /** Hex sha256 of the content at the checkpoint (modify and delete of a file or symlink); null otherwise. */
  previousSha256: string | null;
}

/** What a checkpoint (or the tree now) holds, recorded with it. */
export interface TreeFacts {
  fileCount: number;
  bytes: number;
  /** A content digest of the whole tree: equal trees, equal digests (how it is computed is the provider's, but it must be O(changed) to maintain). */
  digest: string;
}

export interface SnapshotOps {
  /** Freezes the workspace's files as `checkpointId`. The engine refuses it while a job runs. */
  checkpoint(workspaceId: string, checkpointId: string): Promise<TreeFacts>;
  /** Makes the workspace's files exactly the checkpoint's: modified back, new gone, deleted back, modes and symlinks included. */
  restore(workspaceId: string, checkpointId: string): Promise<void>;
  /** True when the checkpoint's data is present and still holds `digest`; never throws for missing data. */
  verify(workspaceId: string, checkpointId: string, digest: string): Promise<boolean>;
  /** Releases the checkpoint's data (forks made from it keep what they need). Dropping a missing one is no error. */
  drop(workspaceId: string, checkpointId: string): Promise<void>;
  /**
   * Makes a new workspace (`spec.workspaceId`, with `spec`'s policy) whose
   * files are exactly the parent's checkpoint `fromCheckpointId`, and gives
   * the child a checkpoint of its own, `childBaseId`, holding that same state:
   * the fork baseline that `changes(child, childBaseId)` and seal compare to.
   */
  fork(parentId: string, fromCheckpointId: string, spec: WorkspaceSpec, childBaseId: string): Promise<WorkspaceDescriptor>;
  /** What changed since the checkpoint, sorted by path, at most `limit` entries. */
  changes(workspaceId: string, checkpointId: string, limit: number): Promise<{ changes: TreeChange[]; truncated: boolean }>;
  /**
   * Opens the checkpoint for reading its regular files as it holds them
   * (diff --patch needs a modified file's old text, and settle copies a sealed
   * child's bytes from its seal checkpoint, never from files that may have
   * moved since). Opened once for all of a call's files: on native each
   * opening mounts a view of the checkpoint, and one per file made a settle
   * of 9,800 small files take 14 minutes (red team, session 11). The caller
   * closes it. Its reads refuse as Provider.read does: a missing path
   * FILE_NOT_FOUND, a directory or link NOT_A_REGULAR_FILE.
   */
  openAt(workspaceId: string, checkpointId: string): Promise<CheckpointReader>;
}

/** A checkpoint open for reading (SnapshotOps.openAt). */
export interface CheckpointReader {
  read(path: string, chunkBytes?: number): Promise<ReadStream>;
  close(): Promise<void>;
}
