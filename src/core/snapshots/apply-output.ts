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

/** Directory entries carry nothing themselves: a file write makes its directories, a deleted directory is removed whole. */
export function skippedDirectories(changes: readonly TreeChange[]): TreeChange[] {
  return changes.filter((c) => c.type === 'directory' && c.kind !== 'delete');
}

export async function carryChanges(provider: Provider, ops: SnapshotOps, output: OutputRecord, maxBytes: number): Promise<number> {
  let steps = 0;
  const deletes = output.changes.filter((c) => c.kind === 'delete').sort((a, b) => b.path.length - a.path.length);
  for (const c of deletes) {
    await provider.removePath(output.parentId, c.path);
    if (++steps === 1) crashPoint('settle', 'mid-apply');
  }
  for (const c of output.changes) {
    if (c.kind === 'delete' || c.type !== 'file') continue;
    const bytes = await readWhole(ops.readAt(output.childId, output.sealCheckpointId, c.path), maxBytes);
    if (bytes === null)
      throw new EngineError('POLICY_DENIED', `${c.path} is larger than the parent's storage budget of ${maxBytes} bytes`, {
        hint: 'settle with release and copy it out with export instead',
      });
    await provider.write(output.parentId, c.path, bytes, { expectedSha256: c.sha256 ?? '', overwrite: true, ...(c.mode === null ? {} : { mode: c.mode }) });
    if (++steps === 1) crashPoint('settle', 'mid-apply');
  }
  return steps;
}
