import { constants, type Stats } from 'node:fs';
import { isAbsolute } from 'node:path';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { EngineError } from '../errors.js';
import { O_DIR_NOFOLLOW, TreeChangedError, WalkError, openDirBeneath, viaFd, walkTree } from './fd-walk.js';
import { isGitMetadata } from './git-directory.js';
import { refuseReservedHostPath } from './host-path-guard.js';
import { pathComponents } from '../paths.js';

export interface HostFile {
  /** Path relative to the source root, with `/` separators, in the name text form ('' for a single file). */
  relative: string;
  size: number;
}

export interface HostSource {
  kind: 'file' | 'directory';
  /** The host path as given: the one path ever opened by name; everything below it is opened fd-relative. */
  root: string;
  files: HostFile[];
  totalBytes: number;
  /** `.git` entries left out (withoutGitMetadata), relative to the root. */
  leftOut: string[];
}

export interface ScanOptions {
  /**
   * Leave out every `.git` entry and every git directory by git's own test
   * (a bare mirror, a `.bare`; files/git-directory.ts) of a directory:
   * for copies an untrusted party asks for (a manifest's inputs, an agent's
   * put), since its config may hold a token (red team round 2: a manifest's
   * directory input carried deps/foo/.git/config into the workspace).
   */
  withoutGitMetadata?: boolean;
}

const O_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Walks a host file or directory that is about to enter a workspace, without
 * following anything: a symlink, device, FIFO or socket anywhere in it is
 * refused by name (a link could smuggle a host secret in; a FIFO could hang
 * the copy forever). The walk is fd-relative and iterative (fd-walk.ts), so a
 * tree deeper than PATH_MAX is copied rather than failing as exit 7 (#10 item 8).
 */
export async function scanHostSource(hostPath: string, options: ScanOptions = {}): Promise<HostSource> {
  refuseReservedHostPath(hostPath, 'put source');
  let top: Stats;
  try {
    top = await lstat(hostPath);
  } catch {
    throw new EngineError('FILE_NOT_FOUND', `no file or directory at ${hostPath} on the host`, { hint: missingHostPathHint(hostPath) });
  }
  if (top.isFile()) return { kind: 'file', root: hostPath, files: [{ relative: '', size: top.size }], totalBytes: top.size, leftOut: [] };
  if (!top.isDirectory()) throw refuse(hostPath, top);
  const files: HostFile[] = [];
  const leftOut: string[] = [];
  const dir = await open(hostPath, O_DIR_NOFOLLOW).catch((cause: unknown) => {
    throw hostError(hostPath, cause);
  });
  try {
    await walkTree(dir, '', ({ rel, stats }) => {
      if (options.withoutGitMetadata === true && isGitMetadata(`${hostPath}/${rel}`, rel.slice(rel.lastIndexOf('/') + 1))) {
        leftOut.push(rel);
        return 'next';
      }
      if (stats.isDirectory()) return 'descend';
      if (!stats.isFile()) throw refuse(`${hostPath}/${rel}`, stats);
      files.push({ relative: rel, size: stats.size });
      return 'next';
    });
  } catch (cause) {
    throw hostError(hostPath, cause);
  } finally {
    await dir.close();
  }
  return { kind: 'directory', root: hostPath, files, totalBytes: files.reduce((n, f) => n + f.size, 0), leftOut };
}

function refuse(path: string, stat: Stats): EngineError {
  const what = stat.isSymbolicLink()
    ? 'a symbolic link'
    : stat.isFIFO()
      ? 'a FIFO'
      : stat.isSocket()
        ? 'a socket'
        : stat.isCharacterDevice() || stat.isBlockDevice()
          ? 'a device'
          : 'not a regular file';
  return new EngineError('NOT_A_REGULAR_FILE', `${shown(path)} is ${what}; only regular files and directories can enter a workspace`, {
    hint: 'copy the real file instead of a link, or leave it out',
  });
}

function shown(path: string): string {
  return path.length > 160 ? `${path.slice(0, 80)}…${path.slice(-79)}` : path;
}

/** A host tree the engine cannot read is the caller's content, not an engine fault: exit 1 with a hint. */
function hostError(path: string, cause: unknown): EngineError {
  if (cause instanceof EngineError) return cause;
  if (cause instanceof TreeChangedError)
    return new EngineError('BAD_PATH', `${shown(path)} changed while it was being read: ${cause.message}`, {
      hint: 'put it again once nothing is moving files in it',
    });
  const code = cause instanceof WalkError ? cause.code : (cause as NodeJS.ErrnoException).code;
  return new EngineError('BAD_PATH', `${shown(path)} could not be read on the host (${code ?? 'error'})`, {
    hint:
      code === 'EACCES' || code === 'EPERM'
        ? 'check the permissions of the source'
        : 'check the source: it must be a regular file or a directory of them, without links',
    cause,
  });
}

/**
 * Reads one scanned file without following a link planted after the scan in
 * any component (fd-relative walk, O_NOFOLLOW, then fstat on the open
 * descriptor), up to the size it has when opened.
 */
export async function readHostFile(source: HostSource, file: HostFile): Promise<Buffer> {
  const where = file.relative === '' ? source.root : `${source.root}/${file.relative}`;
  let handle: FileHandle;
  try {
    if (file.relative === '') handle = await open(source.root, O_READ);
    else {
      // `relative` is in the name text form: open the exact bytes the walk found.
      const parts = pathComponents(file.relative);
      const name = parts.pop()!;
      const root = await open(source.root, O_DIR_NOFOLLOW);
      const dir = await openDirBeneath(root, parts).finally(() => root.close());
      handle = await open(viaFd(dir, name), O_READ).finally(() => dir.close());
    }
  } catch (cause) {
    throw new EngineError('NOT_A_REGULAR_FILE', `${shown(where)} could not be opened as a regular file (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, {
      hint: 'check that you may read it (ls -l) and that nothing replaced it meanwhile',
      cause,
    });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile())
      throw new EngineError('NOT_A_REGULAR_FILE', `${shown(where)} changed into something other than a regular file`, {
        hint: 'something replaced it while it was read; copy it again once it is settled',
      });
    const buffer = Buffer.alloc(stat.size);
    let at = 0;
    while (at < stat.size) {
      const { bytesRead } = await handle.read(buffer, at, stat.size - at, at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return buffer.subarray(0, at);
  } finally {
    await handle.close();
  }
}

/** Where a missing host path was looked for: a relative one is resolved from the process's directory, which is not always the caller's. */
export function missingHostPathHint(hostPath: string): string {
  return `check the spelling with \`ls -ld ${shown(hostPath)}\`${isAbsolute(hostPath) ? '' : ` (a relative path is read from ${shown(process.cwd())})`}`;
}
