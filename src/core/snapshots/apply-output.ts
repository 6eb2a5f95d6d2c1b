/**
 * Carrying a sealed output's changes into its parent (settle select and
 * apply), through the provider's own read/write/removePath: deletions first
 * (deepest first), then each file's bytes read from the child's SEAL
 * checkpoint, written with the digest the seal recorded (a byte that moved
 * cannot land) and its mode. Every step is idempotent, so a repair may run
 * it again.
 */
import { EngineError } from '../errors.js';
import type { Provider } from '../provider.js';
import { crashPoint } from '../crash-points.js';
import { readWhole } from './read-whole.js';
import type { SnapshotOps, TreeChange } from './snapshot-ops.js';
import type { OutputRecord } from './snapshot-records.js';

/** What settle cannot carry, refused before anything changes: symlinks (no provider call writes one yet). */
export function uncarried(changes: readonly TreeChange[]): TreeChange[] {
  return changes.filter((c) => c.type === 'symlink');
}

/**
 * Files the fork made into directories holding no file settle could write: carrying one would remove the parent's
 * file and leave nothing in its place (a file write is what makes a directory; red team, session 11). A directory
 * change that names the file it was (previousSha256) is a change of type; one without is a directory's own mode.
 */
export function filesMadeEmptyDirectories(changes: readonly TreeChange[]): TreeChange[] {
  return changes.filter(
    (c) =>
      c.kind === 'modify' &&
      c.type === 'directory' &&
      c.previousSha256 !== null &&
      !changes.some((d) => d.kind !== 'delete' && d.type === 'file' && d.path.startsWith(`${c.path}/`)),
  );
}

/** Directory entries carry nothing themselves: a file write makes its directories, a deleted directory is removed whole. */
export function skippedDirectories(changes: readonly TreeChange[]): TreeChange[] {
  return changes.filter((c) => c.type === 'directory' && c.kind !== 'delete');
}

/**
 * The most one file settle carries. Each is read whole into the engine's
 * memory (a provider's write takes a buffer), so a file's bound must not
 * be the parent's storage budget: a fork's 4.2 GiB sparse file (no blocks)
 * took 4.4 GB of the engine's memory and then failed past Node's 4 GiB
 * buffer as an infrastructure fault (red team, session 9).
 */
export const SETTLE_FILE_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Why settle refuses to carry these changes, before anything changes, or
 * null: a file past SETTLE_FILE_MAX_BYTES, or files whose sizes together
 * pass the parent's storage budget (they land whole: a sparse file's holes
 * are written as zeros, so a fork of a few real bytes could fill the parent).
 */
export function carryRefusal(changes: readonly TreeChange[], parentStorageBytes: number): string | null {
  const files = changes.filter((c) => c.kind !== 'delete' && c.type === 'file');
  const big = files.filter((c) => c.size > SETTLE_FILE_MAX_BYTES);
  if (big.length > 0)
    return `settle carries at most ${SETTLE_FILE_MAX_BYTES} bytes a file (read whole by the engine), and ${big
      .slice(0, 3)
      .map((c) => `${c.path} reads as ${c.size}`)
      .join(', ')}${big.length > 3 ? ', …' : ''} (a sparse file counts whole)`;
  const total = files.reduce((sum, c) => sum + c.size, 0);
  if (total > parentStorageBytes)
    return `the output's files read as ${total} bytes together, more than the parent's storage budget of ${parentStorageBytes} (each lands whole: a sparse file's holes are written)`;
  return null;
}

export async function carryChanges(provider: Provider, ops: SnapshotOps, output: OutputRecord, maxBytes: number): Promise<number> {
  let steps = 0;
  const deletes = output.changes.filter((c) => c.kind === 'delete').sort((a, b) => b.path.length - a.path.length);
  for (const c of deletes) {
    await provider.removePath(output.parentId, c.path);
    if (++steps === 1) crashPoint('settle', 'mid-apply');
  }
  // A path whose type the fork changed (a directory made a file, or a file a directory) has the old type in the
  // parent still: it goes first, or the write onto it, or under it, was refused ("'d' is a directory") and the
  // output could never settle (red team, session 11). Its old contents were deleted above, by their own changes.
  for (const c of output.changes) {
    if (c.kind !== 'modify' || (c.type !== 'file' && c.type !== 'directory')) continue;
    if ((await parentHolds(provider, output.parentId, c.path)) === (c.type === 'file' ? 'directory' : 'other')) {
      await provider.removePath(output.parentId, c.path);
      if (++steps === 1) crashPoint('settle', 'mid-apply');
    }
  }
  const files = output.changes.filter((c) => c.kind !== 'delete' && c.type === 'file');
  if (files.length === 0) return steps;
  // One opening of the seal checkpoint for every file (on native, one view mount).
  const sealed = await ops.openAt(output.childId, output.sealCheckpointId);
  try {
    for (const c of files) {
      const bytes = await readWhole(sealed.read(c.path), Math.min(maxBytes, SETTLE_FILE_MAX_BYTES));
      if (bytes === null)
        throw new EngineError('POLICY_DENIED', `${c.path} is larger than ${Math.min(maxBytes, SETTLE_FILE_MAX_BYTES)} bytes, the most settle carries a file`, {
          hint: 'settle with release and copy it out with export instead',
        });
      await provider.write(output.parentId, c.path, bytes, { expectedSha256: c.sha256 ?? '', overwrite: true, ...(c.mode === null ? {} : { mode: c.mode }) });
      if (++steps === 1) crashPoint('settle', 'mid-apply');
    }
  } finally {
    await sealed.close();
  }
  return steps;
}

/** What the parent holds at `path`: a directory, something else (a file, a link), or nothing. */
async function parentHolds(provider: Provider, workspaceId: string, path: string): Promise<'directory' | 'other' | 'nothing'> {
  try {
    await provider.list(workspaceId, path, 0);
    return 'directory';
  } catch (error) {
    const code = (error as EngineError).code;
    if (code === 'NOT_A_REGULAR_FILE') return 'other';
    if (code === 'FILE_NOT_FOUND') return 'nothing';
    throw error;
  }
}

/** Set-user-id, set-group-id and sticky bits a sealed file has: a provider writes permission bits only (0777). */
export function setIdBitsDropped(changes: readonly TreeChange[]): TreeChange[] {
  return changes.filter((c) => c.kind !== 'delete' && c.type === 'file' && c.mode !== null && (c.mode & 0o7000) !== 0);
}
