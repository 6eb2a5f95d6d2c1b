/**
 * Symlink-safe host-side file operations on a workspace's files directory.
 *
 * The hazard: a job can plant `ln -s /etc/shadow x`; the link dangles inside
 * the sandbox, but a root runtime that opens `files/x` on the host follows it
 * and leaks the host file. Every operation here therefore opens with
 * O_NOFOLLOW (a final symlink fails with ELOOP) and then asks the kernel
 * where the opened object really lives (`readlink /proc/self/fd/N`): if that
 * is not exactly `<files>/<path>`, some component was a link (or was swapped
 * for one mid-call) and the operation is refused. Later steps address
 * children through `/proc/self/fd/N/<name>`, which resolves through the
 * already-verified directory, the way openat(2) would.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readdir, readlink, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { EngineError } from '../../core/errors.js';
import { normalizeWorkspacePath } from '../../core/paths.js';
import type { FileEntry, ReadStream, WriteOptions } from '../../core/provider.js';

const O_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const O_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const O_CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

export interface SafeFsOwner {
  uid: number;
  gid: number;
}

function viaFd(handle: FileHandle, name?: string): string {
  return name === undefined ? `/proc/self/fd/${handle.fd}` : `/proc/self/fd/${handle.fd}/${name}`;
}

function badPath(rel: string, why: string): EngineError {
  return new EngineError('BAD_PATH', `'${rel.slice(0, 80)}' ${why}`, { hint: 'symbolic links are never followed by host-side file operations' });
}

/** Opens `rel` (or the root) and proves it is the object at `<root>/<rel>`, not something a link led to. */
async function openVerified(realRoot: string, rel: string, flags: number): Promise<FileHandle> {
  const expected = rel === '' ? realRoot : `${realRoot}/${rel}`;
  let handle: FileHandle;
  try {
    handle = await open(expected, flags);
  } catch (error) {
    throw mapOpenError(error, rel);
  }
  const actual = await readlink(viaFd(handle)).catch(() => '');
  if (actual !== expected) {
    await handle.close();
    throw badPath(rel, 'passes through a symbolic link');
  }
  return handle;
}

function mapOpenError(error: unknown, rel: string): EngineError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new EngineError('FILE_NOT_FOUND', `'${rel.slice(0, 80)}' does not exist in the workspace`);
  if (code === 'ELOOP') return badPath(rel, 'is a symbolic link');
  if (code === 'ENOTDIR') return badPath(rel, 'has a component that is not a directory');
  if (code === 'EISDIR') return new EngineError('NOT_A_REGULAR_FILE', `'${rel.slice(0, 80)}' is a directory`);
  return new EngineError('PROVIDER_FAILURE', `cannot open '${rel.slice(0, 80)}': ${code ?? String(error)}`, { cause: error });
}

export interface SafeFs {
  read(path: string, chunkBytes?: number): Promise<ReadStream>;
  write(path: string, data: Buffer, options: WriteOptions): Promise<void>;
  /**
   * Recursive, depth-first, names sorted; paths are workspace-relative (not
   * relative to `path`). Links are listed as `symlink`, never followed;
   * at most `limit` entries, `truncated` when more exist.
   */
  list(path: string, limit: number): Promise<{ entries: FileEntry[]; truncated: boolean }>;
  /** Sum of regular-file sizes under the root, links not followed. */
  measure(): Promise<number>;
  /** Is `rel` a real directory inside the root (used to check a job's cwd)? */
  isDirectory(rel: string): Promise<boolean>;
}

export async function openSafeFs(filesDir: string, owner: SafeFsOwner): Promise<SafeFs> {
  const realRoot = await realpath(filesDir);

  async function read(path: string, chunkBytes = 64 * 1024): Promise<ReadStream> {
    const rel = normalizeWorkspacePath(path);
    const handle = await openVerified(realRoot, rel, O_READ);
    const info = await handle.stat();
    if (!info.isFile()) {
      await handle.close();
      throw new EngineError('NOT_A_REGULAR_FILE', `'${rel.slice(0, 80)}' is not a regular file`);
    }
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      await handle.close();
    };
    const size = info.size;
    const step = Math.max(1, chunkBytes);
    async function* chunks(): AsyncGenerator<Buffer> {
      let position = 0;
      try {
        while (position < size) {
          const buffer = Buffer.alloc(Math.min(step, size - position));
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
          if (bytesRead === 0) break; // truncated underneath us: stop at what exists
          position += bytesRead;
          yield buffer.subarray(0, bytesRead);
        }
      } finally {
        await close();
      }
    }
    return { size, chunks: chunks(), close };
  }

  /** Opens the parent chain of `rel`, creating missing directories owned by the job uid. */
  async function openParent(rel: string): Promise<{ dir: FileHandle; name: string }> {
    const parts = rel.split('/');
    const name = parts.pop()!;
    let dir = await openVerified(realRoot, '', O_DIR);
    let sofar = '';
    for (const part of parts) {
      sofar = sofar === '' ? part : `${sofar}/${part}`;
      try {
        await mkdir(viaFd(dir, part), { mode: 0o755 });
        const made = await openVerified(realRoot, sofar, O_DIR);
        await made.chown(owner.uid, owner.gid);
        await dir.close();
        dir = made;
        continue;
      } catch (error) {
        if (error instanceof EngineError) {
          await dir.close();
          throw error;
        }
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          await dir.close();
          throw mapOpenError(error, sofar);
        }
      }
      const next = await openVerified(realRoot, sofar, O_DIR).finally(() => dir.close());
      dir = next;
    }
    return { dir, name };
  }

  async function write(path: string, data: Buffer, options: WriteOptions): Promise<void> {
    const rel = normalizeWorkspacePath(path);
    const actual = createHash('sha256').update(data).digest('hex');
    if (actual !== options.expectedSha256.toLowerCase()) {
      throw new EngineError('DIGEST_MISMATCH', `the bytes for '${rel.slice(0, 80)}' have sha256 ${actual}, not ${options.expectedSha256.slice(0, 64)}; nothing was written`);
    }
    const { dir, name } = await openParent(rel);
    try {
      const existing = await lstat(viaFd(dir, name)).catch(() => undefined);
      if (existing?.isDirectory()) throw new EngineError('NOT_A_REGULAR_FILE', `'${rel.slice(0, 80)}' is a directory`);
      if (existing !== undefined && !options.overwrite) throw new EngineError('DESTINATION_EXISTS', `'${rel.slice(0, 80)}' already exists`, { hint: 'pass overwrite to replace it' });
      const temp = `.headspace-write-${randomBytes(6).toString('hex')}`;
      const handle = await open(viaFd(dir, temp), O_CREATE, 0o644);
      try {
        await handle.writeFile(data);
        await handle.chown(owner.uid, owner.gid);
      } finally {
        await handle.close();
      }
      try {
        if (options.overwrite) await rename(viaFd(dir, temp), viaFd(dir, name));
        else await link(viaFd(dir, temp), viaFd(dir, name)); // atomic no-clobber: EEXIST if the job made it meanwhile
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new EngineError('DESTINATION_EXISTS', `'${rel.slice(0, 80)}' already exists`);
        if (code === 'EISDIR') throw new EngineError('NOT_A_REGULAR_FILE', `'${rel.slice(0, 80)}' is a directory`);
        throw error;
      } finally {
        await unlink(viaFd(dir, temp)).catch(() => undefined);
      }
    } finally {
      await dir.close();
    }
  }

  async function list(path: string, limit: number): Promise<{ entries: FileEntry[]; truncated: boolean }> {
    const rel = normalizeWorkspacePath(path, { allowRoot: true });
    const entries: FileEntry[] = [];
    let truncated = false;
    const max = Math.max(0, Math.floor(limit));
    async function walk(dirRel: string): Promise<void> {
      const handle = await openVerified(realRoot, dirRel, O_DIR);
      try {
        const names = (await readdir(viaFd(handle))).sort();
        for (const name of names) {
          const info = await lstat(viaFd(handle, name)).catch(() => undefined);
          if (info === undefined) continue; // removed meanwhile
          if (entries.length >= max) {
            truncated = true;
            return;
          }
          const childRel = dirRel === '' ? name : `${dirRel}/${name}`;
          const type: FileEntry['type'] = info.isFile() ? 'file' : info.isDirectory() ? 'directory' : info.isSymbolicLink() ? 'symlink' : 'other';
          entries.push({ path: childRel, type, size: type === 'file' ? info.size : 0 });
          if (type === 'directory') {
            await walk(childRel);
            if (truncated) return;
          }
        }
      } finally {
        await handle.close();
      }
    }
    await walk(rel);
    return { entries, truncated };
  }

  async function measure(): Promise<number> {
    let total = 0;
    async function walk(dirRel: string): Promise<void> {
      let handle: FileHandle;
      try {
        handle = await openVerified(realRoot, dirRel, O_DIR);
      } catch {
        return; // swapped for a link or removed by a running job: not ours to count
      }
      try {
        for (const name of await readdir(viaFd(handle))) {
          const info = await lstat(viaFd(handle, name)).catch(() => undefined);
          if (info?.isFile()) total += info.size;
          else if (info?.isDirectory()) await walk(dirRel === '' ? name : `${dirRel}/${name}`);
        }
      } finally {
        await handle.close();
      }
    }
    await walk('');
    return total;
  }

  async function isDirectory(rel: string): Promise<boolean> {
    try {
      const handle = await openVerified(realRoot, rel, O_DIR);
      await handle.close();
      return true;
    } catch {
      return false;
    }
  }

  return { read, write, list, measure, isDirectory };
}
