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
import type { Provider, ReadStream } from '../provider.js';
import type { RepositoryMove } from './plan.js';
import { putFiles } from './put.js';

/**
 * Opens a workspace file for `use`, or returns null when there is no regular
 * file there. Nothing here reads a file whole into memory: the workspace is
 * a job's to fill, and a sparse 2 GiB `.git/HEAD` once cost the host 4 GB
 * (a red team); HEAD is read up to a few KiB, tracked files are hashed as
 * they stream, and a file in the way is only opened.
 */
async function withWorkspaceFile<T>(provider: Provider, workspaceId: string, path: string, use: (stream: ReadStream) => Promise<T>): Promise<T | null> {
  let stream: ReadStream;
  try {
    stream = await provider.read(workspaceId, path, 1024 * 1024);
  } catch (error) {
    if (isEngineError(error) && (error.code === 'FILE_NOT_FOUND' || error.code === 'NOT_A_REGULAR_FILE' || error.code === 'BAD_PATH')) return null;
    throw error;
  }
  try {
    return await use(stream);
  } finally {
    await stream.close();
  }
}

/** A ref file is a line: past this it names no commit, and is not read on. */
const HEAD_MAX_BYTES = 4096;

/** The HEAD file's text, '' when it is larger than any ref line, or null when there is none. */
function readHead(provider: Provider, workspaceId: string, path: string): Promise<string | null> {
  return withWorkspaceFile(provider, workspaceId, path, async (stream) => {
    if (stream.size > HEAD_MAX_BYTES) return '';
    const chunks: Buffer[] = [];
    let bytes = 0;
    for await (const chunk of stream.chunks) {
      chunks.push(chunk);
      bytes += chunk.length;
      if (bytes > HEAD_MAX_BYTES) return '';
    }
    return Buffer.concat(chunks).toString('utf8');
  });
}

/**
 * git's object id of the blob a workspace file holds — sha1 (or sha256 for a
 * sha256 repository) over `blob <size>\0<bytes>` — hashed as it streams, or
 * null when there is no regular file. A file whose length moved during the
 * read hashes as no blob (it is being changed: dirty either way).
 */
function workspaceBlobId(provider: Provider, workspaceId: string, path: string, hexLength: number, expectedSize: number): Promise<string | null> {
  return withWorkspaceFile(provider, workspaceId, path, async (stream) => {
    // Another size is another blob, whatever its bytes: said without reading them (a job's sparse 8 GiB tracked file
    // took 47 s to hash, red team round 2).
    if (expectedSize >= 0 && stream.size !== expectedSize) return '(another size)';
    const hash = createHash(hexLength === 64 ? 'sha256' : 'sha1').update(`blob ${stream.size}\0`);
    let bytes = 0;
    for await (const chunk of stream.chunks) {
      bytes += chunk.length;
      if (bytes > stream.size) return '(changed while read)';
      hash.update(chunk);
    }
    return bytes === stream.size ? hash.digest('hex') : '(changed while read)';
  });
}

/** What makes a clone in the workspace dirty against the commit it was made at, at most a few lines; empty when clean. */
async function dirtiness(provider: Provider, workspaceId: string, move: RepositoryMove, clone: HostClone): Promise<string[]> {
  const to = move.clone.to;
  const found: string[] = [];
  const head = await readHead(provider, workspaceId, `${to}/.git/HEAD`);
  if (head === null || head.trim() !== move.from) found.push(`${to}/.git/HEAD no longer names ${move.from} (a job committed or checked out)`);
  const tracked = (await clone.trackedFiles(move.from)).filter((f) => f.mode === '100644' || f.mode === '100755');
  const trackedPaths = new Set(tracked.map((f) => f.path));
  for (const file of tracked) {
    if (found.length >= 5) break;
    const blob = await workspaceBlobId(provider, workspaceId, `${to}/${file.path}`, file.blob.length, file.size);
    if (blob === null) found.push(`${to}/${file.path} is gone`);
    else if (blob !== file.blob) found.push(`${to}/${file.path} was changed`);
  }
  for (const path of (await clone.changedPaths(move.from, move.clone.commit)).write) {
    if (found.length >= 5) break;
    if (!trackedPaths.has(path) && (await withWorkspaceFile(provider, workspaceId, `${to}/${path}`, async () => true)) !== null)
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
      const clone = await independentClone(move.clone, move.clone.commit, { maxCheckoutBytes: ws.policy.budget.storageBytes });
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
