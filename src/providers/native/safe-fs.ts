/**
 * Symlink-safe host-side file operations on a workspace's files directory.
 *
 * The hazard: a job can plant `ln -s /etc/shadow x` (or `a -> /dev`, or a
 * link to a host FIFO in a middle component); the link dangles inside the
 * sandbox, but a root runtime that opens `files/x` on the host follows it.
 * Every operation here resolves paths one component at a time through the
 * already open parent directory (`core/files/fd-walk.ts`: no component is
 * ever resolved through a link, and paths stay short at any depth), checks
 * the last component with lstat before opening it (a socket, FIFO or device
 * is refused unopened), and then, as a second guard, asks the kernel where
 * the opened object lives (`readlink /proc/self/fd/N`) whenever that path
 * fits in PATH_MAX.
 *
 * Paths come in the name text form (core/name-text.ts) and are opened as
 * their exact bytes, so a name that is not valid UTF-8 is listed, read and
 * written as itself, never as a lossy look-alike of another name.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { link, lstat, open, readlink, realpath, rename, unlink, type FileHandle } from 'node:fs/promises';
import { EngineError, inputRef } from '../../core/errors.js';
import { clippedPath } from '../../core/name-text.js';
import { nextAction } from '../../core/next-action.js';
import { O_DIR_NOFOLLOW, TreeChangedError, WalkError, openDirBeneath, removeTree, viaFd, walkTree } from '../../core/files/fd-walk.js';
import { normalizeWorkspacePath, pathComponents } from '../../core/paths.js';
import type { FileEntry, ReadStream, WriteOptions } from '../../core/provider.js';

const O_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const O_CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** The readlink guard only works for paths the kernel can print (PATH_MAX 4096, with margin). */
const READLINK_GUARD_MAX = 4000;
/** A listing stops (truncated) past this many bytes of path text: a deep tree of long names cannot balloon memory. */
const LIST_MAX_PATH_BYTES = 16 * 1024 * 1024;

export interface SafeFsOwner {
  uid: number;
  gid: number;
}

/** A directory named where a file was wanted: name one of its files (from its listing), or pack it into one. */
function directoryRefusal(rel: string): EngineError {
  return new EngineError('NOT_A_REGULAR_FILE', `'${clippedPath(rel)}' is a directory`, {
    hint: 'to move a whole directory, pack it into one file first (tar); otherwise name a file inside it, from its listing',
    action: nextAction('ls-files', { path: rel }, ['workspaceId']),
  });
}

function badPath(rel: string, why: string): EngineError {
  return new EngineError('BAD_PATH', `'${clippedPath(rel)}' ${why}`, { hint: 'symbolic links are never followed by host-side file operations' });
}

/** What a non-regular entry is, refused as the workspace's content (exit 1), never opened. */
function notRegular(rel: string, info: Stats): EngineError {
  if (info.isSymbolicLink()) return badPath(rel, 'is a symbolic link');
  if (info.isDirectory()) return directoryRefusal(rel);
  const what = info.isSocket() ? 'a socket' : info.isFIFO() ? 'a FIFO' : info.isCharacterDevice() || info.isBlockDevice() ? 'a device' : 'not a regular file';
  return new EngineError('NOT_A_REGULAR_FILE', `'${clippedPath(rel)}' is ${what} in the workspace`, {
    hint: 'only regular files can be exported or read; have the job write its result to a regular file',
  });
}

function mapOpenError(error: unknown, rel: string): EngineError {
  if (error instanceof EngineError) return error;
  if (error instanceof TreeChangedError)
    return new EngineError('BAD_PATH', error.message, { hint: 'a running job moved directories meanwhile; try again once it has finished' });
  const code = error instanceof WalkError ? error.code : (error as NodeJS.ErrnoException).code;
  const where = error instanceof WalkError ? ` (component ${error.depth + 1})` : '';
  if (code === 'ENOENT')
    return new EngineError('FILE_NOT_FOUND', `'${clippedPath(rel)}' does not exist in the workspace`, {
      hint: 'paths are relative to /workspace; see what is there',
      action: nextAction('ls-files', {}, ['workspaceId']),
    });
  if (code === 'ELOOP') return badPath(rel, `passes through a symbolic link${where}`);
  if (code === 'ENOTDIR') return badPath(rel, `has a component that is not a directory${where}`);
  if (code === 'ENAMETOOLONG') return badPath(rel, `has a name longer than 255 bytes${where}`);
  if (code === 'EISDIR') return directoryRefusal(rel);
  if (code === 'ENXIO' || code === 'ENODEV' || code === 'EOPNOTSUPP') {
    return new EngineError('NOT_A_REGULAR_FILE', `'${clippedPath(rel)}' is not a regular file`, { hint: 'only regular files can be exported or read' });
  }
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return new EngineError('POLICY_DENIED', `the workspace's storage is full; '${clippedPath(rel)}' was not written`, {
      hint: `create the workspace with a larger ${inputRef('budget.storageBytes')} budget, or remove files`,
      inputsOf: 'create',
    });
  return new EngineError('PROVIDER_FAILURE', `cannot open '${clippedPath(rel)}': ${code ?? String(error)}`, {
    hint: 'if the workspace is damaged, destroy it; doctor names what is broken',
    action: nextAction('doctor', { provider: 'native' }),
    cause: error,
  });
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
  /** Removes a file, link or tree (links never followed); a missing path is no error. */
  remove(path: string): Promise<void>;
}

export async function openSafeFs(filesDir: string, owner: SafeFsOwner): Promise<SafeFs> {
  const realRoot = await realpath(filesDir);
  const realRootBytes = Buffer.from(realRoot, 'utf8');

  async function openRoot(): Promise<FileHandle> {
    const root = await open(realRoot, O_DIR_NOFOLLOW).catch((error: unknown) => {
      throw mapOpenError(error, '');
    });
    await guard(root, '');
    return root;
  }

  /** The second guard: where the kernel says the open object lives, when that path is printable. */
  async function guard(handle: FileHandle, rel: string): Promise<void> {
    // Compared as bytes: read as UTF-8, a name that is not valid UTF-8 would never match itself.
    const expected = rel === '' ? realRootBytes : Buffer.concat([realRootBytes, ...pathComponents(rel).flatMap((part) => [Buffer.from('/'), part])]);
    if (expected.length > READLINK_GUARD_MAX) return; // the walk alone guarantees it here
    const actual = await readlink(viaFd(handle), { encoding: 'buffer' }).catch(() => Buffer.alloc(0));
    if (!actual.equals(expected)) {
      await handle.close();
      throw badPath(rel, 'passes through a symbolic link');
    }
  }

  /**
   * Opens the directory `rel` (every component, never through a link); `create` makes missing ones as
   * the job's user; `listing` reports a file at the last component as "not a directory", as list's contract says.
   */
  async function openDir(rel: string, options: { create?: boolean; listing?: boolean } = {}): Promise<FileHandle> {
    const root = await openRoot();
    const parts = pathComponents(rel);
    let dir: FileHandle;
    try {
      dir = await openDirBeneath(root, parts, options.create === true ? (made) => made.chown(owner.uid, owner.gid) : undefined);
    } catch (error) {
      if (options.listing === true && error instanceof WalkError && error.code === 'ENOTDIR' && error.depth === parts.length - 1) {
        throw new EngineError('NOT_A_REGULAR_FILE', `'${clippedPath(rel)}' is not a directory`, { hint: 'it is a file: list the directory that holds it' });
      }
      throw mapOpenError(error, rel);
    } finally {
      await root.close();
    }
    await guard(dir, rel);
    return dir;
  }

  /** The parent's text form and the last component's exact bytes. */
  function split(rel: string): { parent: string; name: Buffer } {
    const at = rel.lastIndexOf('/');
    const [name] = pathComponents(at < 0 ? rel : rel.slice(at + 1));
    return { parent: at < 0 ? '' : rel.slice(0, at), name: name! };
  }

  async function read(path: string, chunkBytes = 64 * 1024): Promise<ReadStream> {
    const rel = normalizeWorkspacePath(path);
    const { parent, name } = split(rel);
    const dir = await openDir(parent);
    let handle: FileHandle;
    let info: Stats;
    try {
      // lstat first: a socket, FIFO or device is refused without being opened (opening one has effects).
      const before = await lstat(viaFd(dir, name)).catch((error: unknown) => {
        throw mapOpenError(error, rel);
      });
      if (!before.isFile()) throw notRegular(rel, before);
      handle = await open(viaFd(dir, name), O_READ).catch((error: unknown) => {
        throw mapOpenError(error, rel);
      });
      info = await handle.stat();
      if (!info.isFile() || info.ino !== before.ino || info.dev !== before.dev) {
        await handle.close();
        throw badPath(rel, 'was replaced while it was being opened');
      }
    } finally {
      await dir.close();
    }
    await guard(handle, rel);
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
    return { size, allocatedBytes: info.blocks * 512, chunks: chunks(), close };
  }

  async function write(path: string, data: Buffer, options: WriteOptions): Promise<void> {
    const rel = normalizeWorkspacePath(path);
    const actual = createHash('sha256').update(data).digest('hex');
    if (actual !== options.expectedSha256.toLowerCase()) {
      throw new EngineError(
        'DIGEST_MISMATCH',
        `the bytes for '${clippedPath(rel)}' have sha256:${actual}, not the expected sha256:${options.expectedSha256.slice(0, 64)}; nothing was written`,
        { hint: 'the source changed while it was copied; copy it again' },
      );
    }
    const { parent, name } = split(rel);
    const dir = await openDir(parent, { create: true });
    try {
      const existing = await lstat(viaFd(dir, name)).catch(() => undefined);
      if (existing?.isDirectory()) throw directoryRefusal(rel);
      if (existing !== undefined && !options.overwrite)
        throw new EngineError('DESTINATION_EXISTS', `'${clippedPath(rel)}' already exists`, { hint: 'pass overwrite to replace it' });
      const temp = `.headspace-write-${randomBytes(6).toString('hex')}`;
      try {
        const handle = await open(viaFd(dir, temp), O_CREATE, 0o644);
        try {
          await handle.writeFile(data);
          await handle.chown(owner.uid, owner.gid);
          // After chown, which clears set-id bits: only the permission bits are carried.
          if (options.mode !== undefined) await handle.chmod(options.mode & 0o777);
        } finally {
          await handle.close();
        }
        if (options.overwrite) await rename(viaFd(dir, temp), viaFd(dir, name));
        else await link(viaFd(dir, temp), viaFd(dir, name)); // atomic no-clobber: EEXIST if the job made it meanwhile
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST')
          throw new EngineError('DESTINATION_EXISTS', `'${clippedPath(rel)}' already exists`, {
            hint: 'write it again with overwrite to replace it, or choose another destination',
          });
        throw mapOpenError(error, rel);
      } finally {
        await unlink(viaFd(dir, temp)).catch(() => undefined);
      }
    } finally {
      await dir.close();
    }
  }

  async function list(path: string, limit: number): Promise<{ entries: FileEntry[]; truncated: boolean }> {
    const rel = normalizeWorkspacePath(path, { allowRoot: true });
    const dir = await openDir(rel, { listing: true });
    const entries: FileEntry[] = [];
    let truncated = false;
    let pathBytes = 0;
    const max = Math.max(0, Math.floor(limit));
    try {
      await walkTree(dir, rel, ({ rel: childRel, stats }) => {
        pathBytes += Buffer.byteLength(childRel);
        if (entries.length >= max || pathBytes > LIST_MAX_PATH_BYTES) {
          truncated = true;
          return 'stop';
        }
        const type: FileEntry['type'] = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : stats.isSymbolicLink() ? 'symlink' : 'other';
        entries.push({ path: childRel, type, size: type === 'file' ? stats.size : 0 });
        return 'descend';
      });
    } catch (error) {
      throw mapOpenError(error, rel);
    } finally {
      await dir.close();
    }
    return { entries, truncated };
  }

  async function measure(): Promise<number> {
    let total = 0;
    const dir = await openDir('').catch(() => undefined);
    if (dir === undefined) return 0;
    try {
      await walkTree(dir, '', ({ stats }) => {
        if (stats.isFile()) total += stats.size;
        return 'descend';
      });
    } catch {
      // A running job moved a directory mid-walk: what was counted so far stands.
    } finally {
      await dir.close();
    }
    return total;
  }

  async function isDirectory(rel: string): Promise<boolean> {
    try {
      const dir = await openDir(normalizeWorkspacePath(rel, { allowRoot: true }));
      await dir.close();
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Removes a file, link or whole tree at `path` (never the root): its parent
   * is reached beneath the root without following a link, and the tree is
   * removed fd-relative, so a link planted anywhere only ever loses itself.
   */
  async function remove(path: string): Promise<void> {
    const rel = normalizeWorkspacePath(path);
    const { parent, name } = split(rel);
    let dir: FileHandle;
    try {
      dir = await openDir(parent);
    } catch (error) {
      if (error instanceof EngineError && error.code === 'FILE_NOT_FOUND') return; // nothing there to remove
      throw error;
    }
    try {
      await removeTree(viaFd(dir, name)).catch((error: unknown) => {
        throw mapOpenError(error, rel);
      });
    } finally {
      await dir.close();
    }
  }

  return { read, write, list, measure, isDirectory, remove };
}
