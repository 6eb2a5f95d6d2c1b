/**
 * Host-side comparison of two views of a workspace's tree (two overlay
 * mounts, or a mount and an empty directory) over a set of candidate paths:
 * the paths present in the layers the two chains do not share
 * (overlay-layers.ts). Whatever differs between the views is at a candidate
 * path or below a candidate directory whose listing differs (an opaque
 * directory or a whiteout hides lower content without naming it), so the
 * cost is what changed plus the listings of the directories it is in, never
 * the tree.
 *
 * The trees are a job's work and hostile: every path is opened one component
 * at a time through the open parent (core/files/fd-walk.ts), entries are
 * lstat'ed, links are read, never followed, and only regular files are opened
 * (O_NOFOLLOW, O_NONBLOCK: a FIFO planted in place of a file never blocks us).
 *
 * A digest reads every byte of a file to its apparent size, which the
 * storage budget does not bound: a job's 0-byte sparse file of 10 TiB, or a
 * thousand hard links to one big file, would hold the engine hashing for
 * hours. So each view reads at most the real data its images can hold (the
 * sum of its layers' images' sizes), a file met again through another link is
 * digested once, and a comparison that would read more is refused
 * (POLICY_DENIED, exit 3) naming the file, before anything was changed.
 * Likewise for the path text it handles: each path is carried whole, so a
 * tree D deep of names L long costs about D²·L (a 3,000-deep tree of
 * 250-byte names, made in under a second inside a 64 MiB workspace, held a
 * checkpoint for 12 minutes and 1.3 GB); past COMPARE_MAX_PATH_BYTES of it
 * the comparison is refused the same way (red team, session 9).
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { lstatOrUndefined, O_DIR_NOFOLLOW, readNames, viaFd, walkTree } from '../../core/files/fd-walk.js';
import { TurnClock } from '../../core/files/turn-clock.js';
import { EngineError } from '../../core/errors.js';
import { clippedPath, nameText } from '../../core/name-text.js';
import { pathComponents } from '../../core/paths.js';
import type { TreeChange } from '../../core/snapshots/snapshot-ops.js';
import type { DigestEntry } from './overlay-layers.js';

const O_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The path text one comparison may handle, summed over every path it
 * collects or finds: a tree of real work (300,000 files of 100-byte paths is
 * 30 MB) stays well under it; a tree built to be deep and long-named does not.
 */
export const COMPARE_MAX_PATH_BYTES = 64 * 1024 * 1024;

/** Bytes per inode of every workspace image (mkfs -i): an image of B bytes holds at most B / 8192 files. */
const IMAGE_BYTES_PER_INODE = 8192;
/** The fewest entries a comparison may always handle, whatever its images' sizes. */
const COMPARE_MIN_ENTRIES = 65_536;

/** What one comparison (a checkpoint's, a `changes`') may spend; see the header. */
export interface CompareBudget {
  /** Bytes each view's digests may read: the real data its images can hold. */
  readonly maxReadBytes: { readonly old: number; readonly new: number };
  /** Path text handled so far, and its bound. */
  readonly pathText: { used: number; readonly max: number };
  /**
   * Entries handled so far, and their bound: twice the files the two views'
   * images can hold. Hard links take no inode, so a job can give one file
   * millions of names, each small in path text and digested once, yet each
   * still an lstat, an open and a record on both sides (398,000 links held a
   * checkpoint 2 min 13 s at 588 MB; 2.66 million, past 12 minutes).
   */
  readonly entries: { used: number; readonly max: number };
}

/**
 * The budget of a comparison of a view over images of `oldViewBytes` with one
 * over images of `newViewBytes` (each the sum of its chain's distinct
 * images: a fork's view holds its parent's layers too, so its own budget
 * alone would refuse a parent's file it deleted).
 */
export function compareBudget(oldViewBytes: number, newViewBytes: number, bounds: { maxPathBytes?: number; minEntries?: number } = {}): CompareBudget {
  const files = Math.ceil((oldViewBytes + newViewBytes) / IMAGE_BYTES_PER_INODE);
  return {
    maxReadBytes: { old: oldViewBytes, new: newViewBytes },
    pathText: { used: 0, max: bounds.maxPathBytes ?? COMPARE_MAX_PATH_BYTES },
    entries: { used: 0, max: Math.max(bounds.minEntries ?? COMPARE_MIN_ENTRIES, 2 * files) },
  };
}

/** Counts `path` against the budget's path text and entries; throws POLICY_DENIED past either. */
function chargePath(budget: CompareBudget, path: string): void {
  budget.entries.used += 1;
  if (budget.entries.used > budget.entries.max)
    throw new EngineError(
      'POLICY_DENIED',
      `comparing the workspace's files would handle more than ${budget.entries.max} entries, twice the files its images can hold (hard links take no inode: '${clippedPath(path)}' is one of them); nothing was changed`,
      { hint: 'remove the extra links or files with a job, then try again' },
    );
  budget.pathText.used += path.length;
  if (budget.pathText.used <= budget.pathText.max) return;
  throw new EngineError(
    'POLICY_DENIED',
    `comparing the workspace's files would handle more than ${budget.pathText.max} bytes of path text (a tree too deep or too long-named: '${clippedPath(path)}' is ${path.length} bytes, ${pathComponents(path).length} levels); nothing was changed`,
    { hint: 'remove that tree with a job (rm -r), or make it shallower, then try again' },
  );
}

/** Adds every path below the directory `root` (a raw layer: whiteouts included, as the names they delete). */
export async function collectPaths(root: string, into: Set<string>, budget: CompareBudget): Promise<void> {
  const dir = await open(root, O_DIR_NOFOLLOW);
  try {
    await walkTree(dir, '', (entry) => {
      if (!into.has(entry.rel)) chargePath(budget, entry.rel);
      into.add(entry.rel);
      return 'descend';
    });
  } finally {
    await dir.close();
  }
}

export interface ViewDelta {
  /** Sorted by path. */
  changes: TreeChange[];
  /** The changed entries as they were (old view), for the digest. */
  before: DigestEntry[];
  /** The changed entries as they are (new view). */
  after: DigestEntry[];
}

/** Compares `oldRoot` with `newRoot` at `candidates` (and what listings below them show); see the header. */
export async function compareViews(oldRoot: string, newRoot: string, candidates: Iterable<string>, budget: CompareBudget): Promise<ViewDelta> {
  const oldDir = await open(oldRoot, O_DIR_NOFOLLOW);
  try {
    const newDir = await open(newRoot, O_DIR_NOFOLLOW);
    try {
      return await compareOpen(oldDir, newDir, candidates, budget);
    } finally {
      await newDir.close();
    }
  } finally {
    await oldDir.close();
  }
}

/**
 * The open directories along the last path asked for in one view, so that
 * the next path (candidates come in order, children right after their
 * directory) opens only the components it does not share with it: a walk
 * from the root per path was quadratic in the depth (a 1,500-deep tree took
 * a minute). Only the deepest WINDOW handles stay open; one above them is
 * opened again from the nearest open one (or the root). One caller at a time.
 */
const WINDOW = 128;

class DirCache {
  private readonly parts: Buffer[] = [];
  private readonly handles: Array<FileHandle | undefined> = [];
  private readonly root: FileHandle;
  /** The digest reads of this view: bytes read so far, its bound, and each file digested, by inode (see the header). */
  readonly reads: { bytes: number; max: number; byInode: Map<string, string> };
  /** The digests' read buffer, one per view: allocated per file, 1 MiB for each empty file was most of a checkpoint's garbage collection. */
  readonly buffer = Buffer.allocUnsafe(1 << 20);
  /** Shared with the other view of the comparison (turn-clock.ts). */
  readonly clock: TurnClock;
  constructor(root: FileHandle, maxBytes: number, clock: TurnClock) {
    this.root = root;
    this.reads = { bytes: 0, max: maxBytes, byInode: new Map() };
    this.clock = clock;
  }

  /**
   * The last path found missing in this view (a component absent, not a directory, or a link): every path below
   * it is missing too, and the candidates below it come one after another. Without it each of them tried the
   * open again: a checkpoint's old view lacks every directory a job made, and a failed open costs an exception.
   */
  private missing: Buffer[] | undefined;

  /** The directory at `parts` (undefined when a component is missing, not a directory, or a link). */
  async dir(parts: readonly Buffer[]): Promise<FileHandle | undefined> {
    const missing = this.missing;
    if (missing !== undefined && missing.length <= parts.length && missing.every((part, i) => part.equals(parts[i]!))) return undefined;
    let common = 0;
    const limit = Math.min(parts.length, this.parts.length);
    while (common < limit && parts[common]!.equals(this.parts[common]!)) common++;
    await this.truncate(common);
    let at = common;
    while (at > 0 && this.handles[at - 1] === undefined) at--;
    let found = at > 0 ? this.handles[at - 1]! : this.root;
    for (let depth = at; depth < parts.length; depth++) {
      const next = await open(viaFd(found, parts[depth]!), O_DIR_NOFOLLOW).catch(() => undefined);
      if (next === undefined) {
        await this.truncate(depth);
        this.missing = parts.slice(0, depth + 1);
        return undefined;
      }
      if (depth < this.parts.length) this.handles[depth] = next;
      else {
        this.parts.push(parts[depth]!);
        this.handles.push(next);
      }
      found = next;
      const far = this.handles[depth - WINDOW];
      if (far !== undefined) {
        await far.close().catch(() => undefined);
        this.handles[depth - WINDOW] = undefined;
      }
    }
    return found;
  }

  private async truncate(length: number): Promise<void> {
    for (let i = this.handles.length - 1; i >= length; i--) await this.handles[i]?.close().catch(() => undefined);
    this.parts.length = Math.min(this.parts.length, length);
    this.handles.length = Math.min(this.handles.length, length);
  }

  async close(): Promise<void> {
    await this.truncate(0);
  }
}

async function compareOpen(oldRoot: FileHandle, newRoot: FileHandle, candidates: Iterable<string>, budget: CompareBudget): Promise<ViewDelta> {
  const clock = new TurnClock();
  const oldDir = new DirCache(oldRoot, budget.maxReadBytes.old, clock);
  const newDir = new DirCache(newRoot, budget.maxReadBytes.new, clock);
  try {
    return await compareCached(oldDir, newDir, candidates, budget);
  } finally {
    await oldDir.close();
    await newDir.close();
  }
}

async function compareCached(oldDir: DirCache, newDir: DirCache, candidates: Iterable<string>, budget: CompareBudget): Promise<ViewDelta> {
  // Popped from the end: sorted descending, paths come out in order, children right after their directory.
  const queue = [...new Set(candidates)].filter((p) => p !== '').sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  const seen = new Set(queue);
  const found: Array<{ change: TreeChange; before?: DigestEntry; after?: DigestEntry }> = [];
  while (queue.length > 0) {
    const path = queue.pop()!;
    const [was, now] = await Promise.all([entryAt(oldDir, path), entryAt(newDir, path)]);
    // A directory's children that only one side lists: hidden or revealed by an opaque directory or a whiteout.
    if (was?.type === 'directory' || now?.type === 'directory') {
      const [a, b] = await Promise.all([was?.type === 'directory' ? childrenAt(oldDir, path) : [], now?.type === 'directory' ? childrenAt(newDir, path) : []]);
      const inA = new Set(a);
      const inB = new Set(b);
      for (const child of [...a.filter((c) => !inB.has(c)), ...b.filter((c) => !inA.has(c))]) {
        const rel = `${path}/${child}`;
        if (!seen.has(rel)) {
          chargePath(budget, rel);
          seen.add(rel);
          queue.push(rel);
        }
      }
    }
    const change = changeOf(path, was, now);
    if (change !== undefined) found.push({ change, ...(was ? { before: was } : {}), ...(now ? { after: now } : {}) });
  }
  found.sort((x, y) => (x.change.path < y.change.path ? -1 : x.change.path > y.change.path ? 1 : 0));
  return {
    changes: found.map((f) => f.change),
    before: found.flatMap((f) => (f.before ? [f.before] : [])),
    after: found.flatMap((f) => (f.after ? [f.after] : [])),
  };
}

/** Pure: the change between an entry as it was and as it is (undefined: absent), or none. */
export function changeOf(path: string, was: DigestEntry | undefined, now: DigestEntry | undefined): TreeChange | undefined {
  if (was === undefined && now === undefined) return undefined;
  if (was !== undefined && now !== undefined && was.type === now.type && was.mode === now.mode && was.sha256 === now.sha256) return undefined;
  const previousSha256 = was !== undefined && now !== undefined ? was.sha256 : (was?.sha256 ?? null);
  if (now === undefined)
    return { path, kind: 'delete', type: was!.type, size: 0, sha256: null, mode: null, previousSha256: was!.type === 'directory' ? null : previousSha256 };
  return {
    path,
    kind: was === undefined ? 'create' : 'modify',
    type: now.type,
    size: now.size,
    sha256: now.sha256,
    mode: now.mode,
    previousSha256: was === undefined || was.type === 'directory' ? null : previousSha256,
  };
}

/**
 * The entry at `path` in the view, or undefined when absent (or not a file, directory or link: FIFOs, sockets and
 * devices hold no content). Its own calls are synchronous: asynchronous ones cost each a thread-pool hop and a
 * promise, five or six per file, and a checkpoint of 60,000 new empty files took 25 s for them (session 10). The
 * views' clock lets the event loop turn between entries and between a big file's reads.
 */
async function entryAt(view: DirCache, path: string): Promise<DigestEntry | undefined> {
  const parts = pathComponents(path);
  // A missing or non-directory (or link) component: nothing is there in this view.
  const parent = await view.dir(parts.slice(0, -1));
  if (parent === undefined) return undefined;
  await view.clock.step();
  const at = viaFd(parent, parts[parts.length - 1]!);
  const info = lstatOrUndefined(at);
  if (info === undefined) return undefined;
  const mode = info.mode & 0o7777;
  if (info.isDirectory()) return { path, type: 'directory', mode, size: 0, sha256: null };
  if (info.isSymbolicLink()) {
    const target = readlinkSync(at, { encoding: 'buffer' });
    return { path, type: 'symlink', mode, size: target.length, sha256: sha256(target) };
  }
  if (!info.isFile()) return undefined;
  const fd = openSync(at, O_READ);
  try {
    const stats = fstatSync(fd, { bigint: true });
    // Compared as numbers, as lstat gave it: an inode number past 2^53 (overlayfs xino sets high bits) is rounded alike.
    if (!stats.isFile() || Number(stats.ino) !== info.ino) return undefined; // swapped meanwhile
    const opened = { size: Number(stats.size), mode: Number(stats.mode) };
    const { reads, buffer } = view;
    // Only a file with more than one link can be met twice. The key holds the change time to the nanosecond, which
    // only the kernel sets: an overlay view over two images (a fork's) reports the overlay's st_dev with each image's
    // own inode numbers, so two different files can share dev and ino, never also their ctime, size and mtime.
    const inode = stats.nlink > 1n ? `${stats.dev}:${stats.ino}:${stats.ctimeNs}:${stats.mtimeNs}:${stats.size}` : undefined;
    const known = inode === undefined ? undefined : reads.byInode.get(inode);
    if (known !== undefined) return { path, type: 'file', mode: opened.mode & 0o7777, size: opened.size, sha256: known };
    if (reads.bytes + opened.size > reads.max) throw digestBoundRefusal(path, opened.size, reads.max);
    const hash = createHash('sha256');
    let size = 0;
    for (;;) {
      // Bounded by what is read, not by the size stat gave: a file growing meanwhile stops at the bound too.
      const bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, reads.max - reads.bytes + 1), null);
      if (bytesRead === 0) break;
      reads.bytes += bytesRead;
      if (reads.bytes > reads.max) throw digestBoundRefusal(path, size + bytesRead, reads.max);
      hash.update(buffer.subarray(0, bytesRead));
      size += bytesRead;
      await view.clock.step();
    }
    const sha256 = hash.digest('hex');
    if (inode !== undefined && size === opened.size) reads.byInode.set(inode, sha256);
    return { path, type: 'file', mode: opened.mode & 0o7777, size, sha256 };
  } finally {
    closeSync(fd);
  }
}

function digestBoundRefusal(path: string, size: number, max: number): EngineError {
  return new EngineError(
    'POLICY_DENIED',
    `comparing the workspace's files would read more than ${max} bytes (all the data its images can hold) to digest them: '${clippedPath(path)}' reads as at least ${size} bytes, so it is sparse (a sparse file counts whole); nothing was changed`,
    { hint: `remove or truncate '${clippedPath(path)}' with a job, then try again` },
  );
}

async function childrenAt(view: DirCache, path: string): Promise<string[]> {
  const dir = await view.dir(pathComponents(path));
  if (dir === undefined) return [];
  return (await readNames(dir).catch(() => [] as Buffer[])).map((name) => nameText(name));
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
