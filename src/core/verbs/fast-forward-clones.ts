/**
 * prepare's in-place update of git inputs (#17): when the only change since
 * a workspace was prepared is that repositories' refs moved forward (each a
 * fast-forward), each clone in the workspace is advanced to the new commit
 * instead of the workspace being replaced: the files that changed between
 * the two commits are written, the removed ones removed, and the clone's
 * `.git` replaced by a fresh independent clone's. Untracked files (a build's
 * output) stay, as with `git merge --ff-only`.
 *
 * A clone a job left dirty is refused before anything is written: a tracked
 * file changed or gone, a file in the way of one the update adds, or a HEAD
 * that moved (a job committed). The check reads the workspace through the
 * provider and hashes each file as git does (blob id); git itself never runs
 * on the workspace's copy, whose configuration a job could have rewritten to
 * run a command on the host.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { EngineContext } from '../context.js';
import { EngineError, isEngineError } from '../errors.js';
import type { HostClone } from '../manifest/git-input.js';
import { nextAction } from '../next-action.js';
import type { Provider } from '../provider.js';
import type { RepositoryMove } from './plan.js';
import { putFiles } from './put.js';

/** A workspace file's bytes, or null when there is no regular file there. */
async function readWorkspaceFile(provider: Provider, workspaceId: string, path: string): Promise<Buffer | null> {
  try {
    const stream = await provider.read(workspaceId, path, 1024 * 1024);
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of stream.chunks) chunks.push(chunk);
      return Buffer.concat(chunks);
    } finally {
      await stream.close();
    }
  } catch (error) {
    if (isEngineError(error) && (error.code === 'FILE_NOT_FOUND' || error.code === 'NOT_A_REGULAR_FILE' || error.code === 'BAD_PATH')) return null;
    throw error;
  }
}

/** git's object id of a blob: sha1 (or sha256 for a sha256 repository) over `blob <size>\0<bytes>`. */
function blobId(bytes: Buffer, hexLength: number): string {
  return createHash(hexLength === 64 ? 'sha256' : 'sha1')
    .update(`blob ${bytes.length}\0`)
    .update(bytes)
    .digest('hex');
}

/** What makes a clone in the workspace dirty against the commit it was made at, at most a few lines; empty when clean. */
async function dirtiness(provider: Provider, workspaceId: string, move: RepositoryMove, clone: HostClone): Promise<string[]> {
  const to = move.clone.to;
  const found: string[] = [];
  const head = await readWorkspaceFile(provider, workspaceId, `${to}/.git/HEAD`);
  if (head === null || head.toString('utf8').trim() !== move.from) found.push(`${to}/.git/HEAD no longer names ${move.from} (a job committed or checked out)`);
  const tracked = (await clone.trackedFiles(move.from)).filter((f) => f.mode === '100644' || f.mode === '100755');
  const trackedPaths = new Set(tracked.map((f) => f.path));
  for (const file of tracked) {
    if (found.length >= 5) break;
    const bytes = await readWorkspaceFile(provider, workspaceId, `${to}/${file.path}`);
    if (bytes === null) found.push(`${to}/${file.path} is gone`);
    else if (blobId(bytes, file.blob.length) !== file.blob) found.push(`${to}/${file.path} was changed`);
  }
  for (const path of (await clone.changedPaths(move.from, move.clone.commit)).write) {
    if (found.length >= 5) break;
    if (!trackedPaths.has(path) && (await readWorkspaceFile(provider, workspaceId, `${to}/${path}`)) !== null)
      found.push(`${to}/${path} is untracked and the update would overwrite it`);
  }
  return found;
}

/**
 * Checks every moved clone is clean, then advances each in place. Returns a
 * line per clone. Throws MANIFEST_CHANGED, having written nothing, when a
 * clone is dirty.
 */
export async function fastForwardClones(ctx: EngineContext, workspaceId: string, file: string, moves: RepositoryMove[]): Promise<string[]> {
  const { independentClone } = await import('../manifest/git-input.js');
  const ws = ctx.store().getWorkspace(workspaceId)!;
  ctx.store().refuseIfRunning(ws.id);
  const provider = await ctx.provider(ws.provider);
  const clones: HostClone[] = [];
  try {
    for (const move of moves) {
      const clone = await independentClone(move.clone, move.clone.commit);
      clones.push(clone);
      const dirty = await dirtiness(provider, ws.id, move, clone);
      if (dirty.length > 0)
        throw new EngineError(
          'MANIFEST_CHANGED',
          `prepare refused: ${move.clone.key} (${move.clone.shown}@${move.clone.ref}) moved forward to ${move.clone.commit}, but a job left its clone at ${move.clone.to}/ dirty: ${dirty.join('; ')}; nothing was done`,
          {
            hint: 'export what you need from the clone, then prepare again with recreate (the workspace is replaced), or restore the files',
            action: nextAction('prepare', { file, recreate: true }),
          },
        );
    }
    // A link the update would add is refused here, before anything is written, not halfway through the copy (files/host-source.ts refuses links).
    for (const [i, move] of moves.entries()) {
      const links = (await clones[i]!.trackedFiles(move.clone.commit)).filter((f) => f.mode === '120000').map((f) => f.path);
      if (links.length > 0)
        throw new EngineError(
          'BAD_PATH',
          `prepare refused: ${move.clone.key} at ${move.clone.commit} holds symbolic links (${links.slice(0, 3).join(', ')}), which never enter a workspace; nothing was done`,
          { hint: 'pin the repository at a commit without links, or take the files in another way' },
        );
    }
    const lines: string[] = [];
    for (const [i, move] of moves.entries()) {
      const clone = clones[i]!;
      const { write, remove } = await clone.changedPaths(move.from, move.clone.commit);
      for (const path of remove) await provider.removePath(ws.id, `${move.clone.to}/${path}`);
      for (const path of write)
        await putFiles(ctx, { workspaceId: ws.id, hostPath: join(clone.dir, path), destination: `${move.clone.to}/${path}`, overwrite: true });
      await putFiles(ctx, { workspaceId: ws.id, hostPath: join(clone.dir, '.git'), destination: `${move.clone.to}/.git`, overwrite: true });
      lines.push(
        `${move.clone.key} ${move.clone.shown}@${move.clone.ref} → ${move.clone.to}/: fast-forwarded in place ${move.from} → ${move.clone.commit} (${write.length} file(s) written, ${remove.length} removed)`,
      );
    }
    return lines;
  } finally {
    for (const clone of clones) clone.remove();
  }
}
