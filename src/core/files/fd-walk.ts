/**
 * Path resolution and tree walks that never follow a link in ANY component
 * and never build a long path (#10 items 8 and 12).
 *
 * The failures this prevents:
 *  - `open("<root>/a/b", O_NOFOLLOW)` protects only the last component: as
 *    root it followed a planted `a -> /dev` (or a link to a host FIFO) before
 *    any later check could refuse, and the open itself has effects;
 *  - a job nested 1,500 directories; host-side code that joined full paths
 *    hit ENAMETOOLONG (PATH_MAX is 4,096 bytes) and reported exit 7.
 *
 * How: every step opens exactly ONE name relative to an already open
 * directory, as `/proc/self/fd/<dirfd>/<name>` with O_NOFOLLOW|O_DIRECTORY.
 * The kernel jumps through the magic link to the open directory (the way
 * openat(2) starts from a dirfd), then resolves the single `name` as the last
 * component, so O_NOFOLLOW applies to it: a link fails with ELOOP, a
 * non-directory with ENOTDIR before anything is opened. The path stays under
 * 300 bytes at any depth.
 *
 * Why not openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS): Node has no binding,
 * so it needs a helper binary (a process per open, about 1–2 ms, plus a build
 * step and a fallback for kernels before 5.6 anyway). The per-component walk
 * gives the same guarantee — no component is ever resolved through a link —
 * in pure Node, on every kernel, at one open per component. Callers keep the
 * `/proc/self/fd/N` readlink check as a second guard where the path fits.
 *
 * Walks are iterative (a stack of frames, not recursion) and hold two
 * descriptors at most: going back up opens `..` of the current directory and
 * checks it is the very directory (device and inode) it came from, so a
 * directory moved by a running job stops the walk instead of leading it
 * elsewhere.
 *
 * Names are bytes end to end (round 2: names that are not valid UTF-8):
 * directories are read with `encoding: 'buffer'` and each name is opened as
 * the Buffer path `/proc/self/fd/N/<bytes>`. Read as UTF-8, `d\xff` became
 * `d\u{fffd}`, which does not exist, so the directory and all below it
 * vanished from every walk, and `r\xff.txt` merged with a real
 * `r\u{fffd}.txt`. `rel` is the name text form (core/name-text.ts).
 */
import { constants, lstatSync, type Stats } from 'node:fs';
import { lstat, mkdir, open, readdir, rmdir, unlink, type FileHandle } from 'node:fs/promises';
import { nameText } from '../name-text.js';
import { TurnClock } from './turn-clock.js';

export const O_DIR_NOFOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** The path that names `name` (exact bytes) inside the open directory `dir`, short at any depth. */
export function viaFd(dir: FileHandle): string;
export function viaFd(dir: FileHandle, name: string | Buffer): Buffer;
export function viaFd(dir: FileHandle, name?: string | Buffer): string | Buffer {
  if (name === undefined) return `/proc/self/fd/${dir.fd}`;
  return Buffer.concat([Buffer.from(`/proc/self/fd/${dir.fd}/`), typeof name === 'string' ? Buffer.from(name, 'utf8') : name]);
}

/** The names in the open directory `dir`, as bytes, in byte order. */
export async function readNames(dir: FileHandle): Promise<Buffer[]> {
  return (await readdir(viaFd(dir), { encoding: 'buffer' })).sort(Buffer.compare);
}

/** A new descriptor for the directory `dir` is open on (the caller may close either independently). */
export function reopenDir(dir: FileHandle): Promise<FileHandle> {
  // No O_NOFOLLOW here: /proc/self/fd/N is itself the (magic) link to follow, to the directory already open.
  return open(viaFd(dir), constants.O_RDONLY | constants.O_DIRECTORY);
}

/** Thrown with the index of the component that failed, so callers can name it; `cause` carries the errno. */
export class WalkError extends Error {
  readonly code: string;
  readonly depth: number;
  constructor(code: string, depth: number, cause: unknown) {
    super(`walk failed at component ${depth + 1}: ${code}`, { cause });
    this.name = 'WalkError';
    this.code = code;
    this.depth = depth;
  }
}

function walkError(error: unknown, depth: number): WalkError {
  return new WalkError((error as NodeJS.ErrnoException).code ?? 'EIO', depth, error);
}

/**
 * Opens the directory `parts` below `root`, one component at a time, never
 * through a link. `create` makes a missing component (mode 0755) and calls it
 * with the new directory so the caller can chown it. Returns a descriptor the
 * caller closes; `root` stays open.
 */
export async function openDirBeneath(root: FileHandle, parts: readonly Buffer[], create?: (made: FileHandle) => Promise<void>): Promise<FileHandle> {
  let dir = await reopenDir(root);
  try {
    for (let depth = 0; depth < parts.length; depth++) {
      const name = parts[depth]!;
      let next: FileHandle;
      try {
        next = await open(viaFd(dir, name), O_DIR_NOFOLLOW);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // O_DIRECTORY|O_NOFOLLOW reports a link as ENOTDIR: tell the two apart for the caller's message.
        if (code === 'ENOTDIR' && (await lstat(viaFd(dir, name)).catch(() => undefined))?.isSymbolicLink()) throw new WalkError('ELOOP', depth, error);
        if (code !== 'ENOENT' || create === undefined) throw walkError(error, depth);
        next = await makeDir(dir, name, depth, create);
      }
      await dir.close();
      dir = next;
    }
    return dir;
  } catch (error) {
    await dir.close().catch(() => undefined);
    throw error;
  }
}

async function makeDir(dir: FileHandle, name: Buffer, depth: number, create: (made: FileHandle) => Promise<void>): Promise<FileHandle> {
  let made = false;
  try {
    await mkdir(viaFd(dir, name), { mode: 0o755 });
    made = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw walkError(error, depth);
  }
  let next: FileHandle;
  try {
    next = await open(viaFd(dir, name), O_DIR_NOFOLLOW);
  } catch (error) {
    throw walkError(error, depth);
  }
  if (made) await create(next);
  return next;
}

export interface TreeEntry {
  /** Path relative to the walk's start, `/`-separated, in the name text form (the start's own prefix included). */
  rel: string;
  stats: Stats;
}

/** What `visit` wants next: descend into this directory, go on to the next entry, or end the walk. */
export type Visit = 'descend' | 'next' | 'stop';

/** The tree changed under the walk (a directory moved while it was inside it). */
export class TreeChangedError extends Error {
  constructor(rel: string) {
    super(`the directory above '${rel.slice(0, 80)}' changed during the walk`);
    this.name = 'TreeChangedError';
  }
}

interface Frame {
  rel: string;
  names: Buffer[];
  next: number;
  dev: number;
  ino: number;
}

/**
 * Steps from `dir` up to its parent, closing `dir`, and proves the parent is
 * the directory the walk came down from (same device and inode): a job that
 * moved the tree meanwhile would otherwise lead the walk somewhere else.
 */
async function climbTo(dir: FileHandle, parent: { dev: number; ino: number }, label: string): Promise<FileHandle> {
  const up = await open(viaFd(dir, '..'), O_DIR_NOFOLLOW);
  await dir.close();
  const at = await up.stat();
  if (at.dev !== parent.dev || at.ino !== parent.ino) {
    await up.close();
    throw new TreeChangedError(label);
  }
  return up;
}

/** lstat, or undefined when the entry is gone (or cannot be read). Synchronous: see walkTree. */
export function lstatOrUndefined(path: Buffer): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Visits every entry below the open directory `start` depth-first, names
 * sorted, without following a link (entries are lstat'ed through the open
 * directory) and without recursion. `startRel` prefixes every `rel`.
 */
export async function walkTree(start: FileHandle, startRel: string, visit: (entry: TreeEntry) => Visit): Promise<void> {
  const clock = new TurnClock();
  let dir = await reopenDir(start);
  try {
    const top = await dir.stat();
    const stack: Frame[] = [{ rel: startRel, names: await readNames(dir), next: 0, dev: top.dev, ino: top.ino }];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next >= frame.names.length) {
        stack.pop();
        const parent = stack[stack.length - 1];
        if (parent === undefined) break;
        dir = await climbTo(dir, parent, frame.rel);
        continue;
      }
      const name = frame.names[frame.next++]!;
      // Synchronous, the event loop turning on the clock's time: an asynchronous lstat per entry cost a thread-pool
      // hop and a promise each, most of a big tree's walk (session 10).
      await clock.step();
      const stats = lstatOrUndefined(viaFd(dir, name));
      if (stats === undefined) continue; // removed meanwhile
      const rel = frame.rel === '' ? nameText(name) : `${frame.rel}/${nameText(name)}`;
      const wanted = visit({ rel, stats });
      if (wanted === 'stop') return;
      if (wanted !== 'descend' || !stats.isDirectory()) continue;
      const child = await open(viaFd(dir, name), O_DIR_NOFOLLOW).catch(() => undefined);
      if (child === undefined) continue; // replaced by a link or removed meanwhile: not followed
      const info = await child.stat();
      if (info.dev !== stats.dev || info.ino !== stats.ino) {
        await child.close(); // swapped between lstat and open
        continue;
      }
      const names = await readNames(child).catch(() => [] as Buffer[]);
      await dir.close();
      dir = child;
      stack.push({ rel, names, next: 0, dev: info.dev, ino: info.ino });
    }
  } finally {
    await dir.close().catch(() => undefined);
  }
}

/**
 * `rm -r` for a tree a job may have shaped: fd-relative and iterative (Node's
 * own `rm({ recursive: true })` joins full paths and failed with
 * ENAMETOOLONG on a 1,500-deep tree, leaving a destroyed workspace's files
 * behind), never following a link, and never crossing into another
 * filesystem (a mount point inside is refused, not emptied). A missing
 * `path` is fine.
 */
export async function removeTree(path: string | Buffer): Promise<void> {
  const top = await lstat(path).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  if (top === undefined) return;
  if (!top.isDirectory()) {
    await unlink(path).catch(ignoreMissing);
    return;
  }
  let dir = await open(path, O_DIR_NOFOLLOW);
  try {
    const stack: Array<Frame & { name: Buffer }> = [{ rel: '', name: Buffer.alloc(0), names: await readNames(dir), next: 0, dev: top.dev, ino: top.ino }];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.names.length) {
        const name = frame.names[frame.next++]!;
        const info = await lstat(viaFd(dir, name)).catch(() => undefined);
        if (info === undefined) continue;
        if (info.dev !== top.dev) throw new Error(`refusing to remove across a mount point inside ${typeof path === 'string' ? path : nameText(path)}`);
        if (!info.isDirectory()) {
          await unlink(viaFd(dir, name)).catch(ignoreMissing);
          continue;
        }
        const child = await open(viaFd(dir, name), O_DIR_NOFOLLOW);
        const at = await child.stat();
        if (at.dev !== info.dev || at.ino !== info.ino) {
          await child.close();
          throw new TreeChangedError(nameText(name));
        }
        await dir.close();
        dir = child;
        stack.push({ rel: '', name, names: await readNames(dir), next: 0, dev: at.dev, ino: at.ino });
        continue;
      }
      stack.pop();
      const parent = stack[stack.length - 1];
      if (parent === undefined) break;
      dir = await climbTo(dir, parent, nameText(frame.name));
      await rmdir(viaFd(dir, frame.name)).catch(ignoreMissing);
    }
  } finally {
    await dir.close().catch(() => undefined);
  }
  await rmdir(path).catch(ignoreMissing);
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}
