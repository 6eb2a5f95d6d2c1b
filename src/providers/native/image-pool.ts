/**
 * A warm pool of formatted, unmounted workspace images (#20): `create` takes
 * mkfs.ext4 (30–120 ms on a loaded host) off its path by renaming a ready
 * image into the new workspace's folder. Kept at `<root>/pool/`, on the same
 * filesystem as `<root>/workspaces/`, so a claim is one rename(2):
 *
 *   ready-<bytes>-<format>-<slot>.img   a finished image: taken by rename, never shared
 *   making-<bytes>-<format>-<slot>.img  being made by a refill; never taken
 *   slot-<slot>.lock                    held (flock) by the refill making that slot
 *
 * Why it is safe:
 *  - Two processes creating at once: rename(2) of one name succeeds for one of
 *    them only; the other gets ENOENT and tries the next slot or mkfs as before.
 *    A claimed image is in the workspace's folder, so it is never handed out
 *    again and never returned.
 *  - A refill is a detached shell (a short-lived CLI process does not wait for
 *    it, and pays no node start for it) that makes each image under a
 *    temporary name and renames it into place only after mkfs.ext4 has
 *    finished (mkfs fsyncs before it exits). Killed midway it leaves a
 *    `making-` file, which no claim matches; the next refill of that slot
 *    (holding its lock) deletes it, and a cleanup deletes one older than ten
 *    minutes.
 *  - What a claim takes is checked after the rename, before use: a regular
 *    file, root's, mode 0600, one link, the requested size, an ext4
 *    superblock marked cleanly unmounted, and the label this home gives its
 *    pool images (`hs-<root tag>`), attached to no loop device. Anything else
 *    is deleted and the create goes on with the next slot or mkfs.
 *  - The pool holds images of one size, the default budget's; a create that
 *    asks for another size finds none and makes its own (the old path).
 *
 * The refill's shell works only relative to its working directory, the pool
 * folder: once that folder is deleted (a removed home) it can create nothing.
 */
import { spawn } from 'node:child_process';
import { ProviderError } from '../../core/errors.js';
import { createHash } from 'node:crypto';
import { loopDevicesUnder } from './workspace-filesystem.js';
import { lstat, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Pool images are formatted like any workspace image, but owned by root (the create chowns the root to its job user) and labelled. */
export function poolMkfsArgs(label: string): string[] {
  return ['-q', '-F', '-t', 'ext4', '-m', '0', '-i', '8192', '-O', '^has_journal', '-L', label, '-E', 'lazy_itable_init=1,nodiscard,root_owner=0:0'];
}

/** How many images the pool keeps: HEADSPACE_POOL_SIZE, default 2, 0 turns it off. */
export const DEFAULT_POOL_SIZE = 2;
export const MAX_POOL_SIZE = 16;

export function poolSizeFrom(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_POOL_SIZE;
  const n = Number(value);
  // Fail closed on nonsense: a pool that grows without bound would fill the disk with images.
  if (!Number.isInteger(n) || n < 0 || n > MAX_POOL_SIZE)
    throw new ProviderError(`HEADSPACE_POOL_SIZE must be an integer from 0 to ${MAX_POOL_SIZE}, not ${JSON.stringify(value)}`, {
      hint: 'unset it for the default (2), or set 0 to keep no images ready',
    });
  return n;
}

/** A refill's `making-` file older than this belongs to a refill that died (one image takes well under a second). */
const STALE_MAKING_MS = 10 * 60_000;

export interface ImagePool {
  readonly dir: string;
  readonly size: number;
  /** Moves a ready, checked image of `bytes` to `dest`; false when none fits (the caller makes its own). */
  claim(bytes: number, dest: string): Promise<boolean>;
  /**
   * Deletes what does not belong and, when a slot is empty, starts ONE
   * detached shell that fills the empty slots with images of `bytes`; does
   * not wait for it. Returns the shell's pid (tests wait for it or kill it).
   */
  refill(bytes: number): Promise<number | undefined>;
}

export function imagePool(options: { dir: string; size: number; mkfsPath: string; label: string }): ImagePool {
  const { dir, size, mkfsPath, label } = options;
  const args = poolMkfsArgs(label);
  // The format: everything that decides what mkfs writes. A pool made by another mkfs or other arguments is not taken.
  const format = createHash('sha256')
    .update(JSON.stringify([mkfsPath, args]))
    .digest('hex')
    .slice(0, 12);
  const READY = /^ready-(\d+)-([0-9a-f]{12})-(\d+)\.img$/;
  const MAKING = /^making-(\d+)-([0-9a-f]{12})-(\d+)\.img$/;
  const LOCK = /^slot-(\d+)\.lock$/;

  async function claim(bytes: number, dest: string): Promise<boolean> {
    if (size === 0) return false;
    const names = (await readdir(dir).catch(() => [] as string[])).filter((name) => {
      const m = READY.exec(name);
      return m !== null && Number(m[1]) === bytes && m[2] === format;
    });
    // Start at a different slot per process: two creates at once then rarely contend for the same name.
    const start = names.length === 0 ? 0 : process.pid % names.length;
    for (let i = 0; i < names.length; i++) {
      const name = names[(start + i) % names.length]!;
      try {
        await rename(join(dir, name), dest);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue; // another process took it first
        throw error;
      }
      if (await isPoolImage(dest, bytes, label)) return true;
      await rm(dest, { force: true });
    }
    return false;
  }

  async function refill(bytes: number): Promise<number | undefined> {
    if (size === 0) return undefined;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const present = new Set<number>();
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      const ready = READY.exec(name);
      const making = MAKING.exec(name);
      const lock = LOCK.exec(name);
      if (ready !== null && Number(ready[1]) === bytes && ready[2] === format && Number(ready[3]) < size) present.add(Number(ready[3]));
      else if (making !== null) {
        // A live refill's file is young; an old one is a dead refill's.
        const info = await lstat(path).catch(() => undefined);
        if (info !== undefined && Date.now() - info.mtimeMs > STALE_MAKING_MS) await unlink(path).catch(() => undefined);
      } else if (lock !== null && Number(lock[1]) < size) continue;
      // Another size, another format, a slot past the size, or a name no pool writes: cleaned.
      else await rm(path, { recursive: true, force: true }).catch(() => undefined);
    }
    const empty = Array.from({ length: size }, (_, slot) => slot).filter((slot) => !present.has(slot));
    if (empty.length === 0) return undefined;
    const child = spawn('/bin/sh', ['-c', REFILL_SCRIPT, 'headspace-pool-refill', String(bytes), format, mkfsPath, empty.join(' '), ...args], {
      cwd: dir,
      detached: true,
      stdio: 'ignore',
    });
    child.on('error', () => undefined); // no shell: the pool stays empty and creates make their own images
    child.unref();
    return child.pid;
  }

  return { dir, size, claim, refill };
}

/**
 * $1 bytes, $2 format, $3 mkfs, $4 the empty slots; the rest mkfs's arguments.
 * Per slot, under its lock (flock -n: a refill already at it wins, this one
 * moves on): nothing to do if it is full; else delete the `making-` files
 * of this slot (whoever wrote them no longer holds its lock: a dead refill), make the image under the temporary name, rename it ready.
 */
const REFILL_SCRIPT = `
umask 077
bytes=$1 format=$2 mkfs=$3 slots=$4
shift 4
for slot in $slots; do
  (
    exec 9>"slot-$slot.lock" || exit 0
    /usr/bin/flock -n 9 || exit 0
    ready="ready-$bytes-$format-$slot.img"
    making="making-$bytes-$format-$slot.img"
    [ -e "$ready" ] && exit 0
    rm -f making-*-"$slot".img
    if /usr/bin/truncate -s "$bytes" "$making" && "$mkfs" "$@" "$making"; then
      mv -f -T "$making" "$ready" || rm -f "$making"
    else
      rm -f "$making"
    fi
  )
done
`;

/** The checks a claimed image passes before use (see the header); reads one superblock. */
export async function isPoolImage(path: string, bytes: number, label: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (info === undefined || !info.isFile() || info.uid !== 0 || info.nlink !== 1 || (info.mode & 0o777) !== 0o600 || info.size !== bytes) return false;
  const handle = await open(path, 'r').catch(() => undefined);
  if (handle === undefined) return false;
  const superblock = Buffer.alloc(1024);
  try {
    const { bytesRead } = await handle.read(superblock, 0, 1024, 1024);
    if (bytesRead !== 1024) return false;
  } finally {
    await handle.close();
  }
  const magic = superblock.readUInt16LE(0x38);
  const cleanlyUnmounted = (superblock.readUInt16LE(0x3a) & 1) === 1;
  const volumeName = superblock.subarray(0x78, 0x88).toString('latin1').replace(/\0+$/, '');
  if (magic !== 0xef53 || !cleanlyUnmounted || volumeName !== label) return false;
  return loopDevicesUnder(dirname(path)).every((loop) => loop.backingFile !== path);
}
