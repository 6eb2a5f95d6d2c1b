/**
 * A filesystem of its own per workspace: a sparse ext4 image the size of the
 * storage budget (`<root>/workspaces/<id>/storage.img`), loop-mounted at
 * `<mount base>/fs/<id>` (workspace-storage.ts says why there), which is what
 * bwrap binds at /workspace and what the host-side safe-fs works on.
 *
 * Why (two findings, one fix):
 *  - `/proc/self/mountinfo` inside a sandbox shows each bind mount's root as
 *    its path on the source filesystem, so binding a host directory at
 *    /workspace revealed `<HEADSPACE_HOME>/native/workspaces/<id>/files`
 *    (probe scenario `proc-host-paths`). The root of a filesystem of its own
 *    is `/`, so nothing of the host path shows.
 *  - A filesystem the size of the budget enforces the budget: writes past it
 *    fail with ENOSPC inside the job, and the host's own filesystem only ever
 *    holds the image's allocated blocks.
 *
 * Needs root (mount) and loop devices (`/dev/loop-control`) and mkfs.ext4
 * (e2fsprogs); `probeWorkspaceFilesystem` says whether this host has them, and
 * the provider falls back to a plain host directory (storage measured only,
 * the mountinfo leak remaining) when it does not.
 *
 * Mounting uses `mount -o loop`, which sets the loop device's autoclear flag:
 * the device is released when the last mount of it goes, so `umount` (or a
 * lazy `umount -l` once the last user closes) frees it with nothing to detach.
 *
 * Costs measured on the project's 2-core VM under load: mkfs.ext4 of a 1 GiB
 * sparse image 20–50 ms (no journal, lazy inode tables, no discard pass; it
 * writes about 0.6 MiB), mount 25–50 ms, umount 20–45 ms.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, statSync, statfsSync, type Stats } from 'node:fs';
import { access, chmod, chown, constants, open, rm, rmdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';

const run = promisify(execFile);

export const MKFS_CANDIDATES = ['/usr/sbin/mkfs.ext4', '/sbin/mkfs.ext4'] as const;
const MOUNT = '/usr/bin/mount';
const UMOUNT = '/usr/bin/umount';
const LOSETUP_CANDIDATES = ['/usr/sbin/losetup', '/sbin/losetup'] as const;

/**
 * Mount options. `nodev,nosuid`: nothing on the image may act as a device or
 * gain privilege; `noatime`: reads cost no writes; `discard`: blocks freed
 * inside are punched out of the sparse image, so the host holds what the
 * workspace holds now, not its high-water mark. Never `noexec`: jobs run
 * their own scripts from /workspace.
 */
export const MOUNT_OPTIONS = 'loop,nodev,nosuid,noatime,discard';

/**
 * mkfs.ext4 arguments for a scratch filesystem of `bytes` owned by `owner`.
 * No journal (a workspace does not outlive a host crash more safely with one
 * than its meta.json does, and the journal is 32 MiB of a 1 GiB image written
 * at mkfs time), lazy inode tables, no discard pass over a fresh sparse file,
 * no reserved blocks, one inode per 8 KiB (twice the default count: a
 * node_modules tree runs out of inodes before bytes at the default).
 */
export function mkfsArgs(image: string, owner: { uid: number; gid: number }): string[] {
  return [
    '-q',
    '-F',
    '-t',
    'ext4',
    '-m',
    '0',
    '-i',
    '8192',
    '-O',
    '^has_journal',
    '-E',
    `lazy_itable_init=1,nodiscard,root_owner=${owner.uid}:${owner.gid}`,
    image,
  ];
}

export interface FilesystemSupport {
  /** True when this process can give each workspace a loop-mounted image. */
  available: boolean;
  /** One line: what was found. */
  detail: string;
  mkfsPath?: string;
}

/**
 * Static checks only (no trial mount, which costs a mkfs and two mounts on
 * every CLI verb): root, a loop control device, mkfs.ext4, mount and umount.
 * A host that passes these and still cannot mount fails `create` closed.
 */
export async function probeWorkspaceFilesystem(uid: number): Promise<FilesystemSupport> {
  if (uid !== 0) return { available: false, detail: 'not root: mounting a per-workspace filesystem needs root' };
  const loopControl = statIfAny('/dev/loop-control');
  if (loopControl === undefined || !loopControl.isCharacterDevice())
    return { available: false, detail: 'no loop devices: /dev/loop-control is missing (modprobe loop, or a container without loop access)' };
  const mkfsPath = await firstExecutable(MKFS_CANDIDATES);
  if (mkfsPath === undefined) return { available: false, detail: 'mkfs.ext4 not found (e2fsprogs is not installed)' };
  if ((await firstExecutable([MOUNT])) === undefined || (await firstExecutable([UMOUNT])) === undefined)
    return { available: false, detail: `${MOUNT} or ${UMOUNT} not found (util-linux/mount)` };
  return {
    available: true,
    detail: `an ext4 image per workspace sized to its storage budget, loop-mounted under the mount base (${mkfsPath}, /dev/loop-control)`,
    mkfsPath,
  };
}

/**
 * Makes the image (sparse, exclusive: an existing file is never reused) and
 * its filesystem, mounts it at `mountPoint` and leaves an empty root owned by
 * `owner`, mode 0700. On failure it undoes what it did, so only the image
 * file can remain if this process dies midway (leftovers.ts names it).
 */
export async function makeWorkspaceFilesystem(options: {
  image: string;
  mountPoint: string;
  bytes: number;
  owner: { uid: number; gid: number };
  mkfsPath: string;
  /** Moves a formatted pool image (image-pool.ts) to `image`; true when it did, and then mkfs is skipped. */
  claim?: (image: string) => Promise<boolean>;
}): Promise<void> {
  const { image, mountPoint, owner } = options;
  if (options.claim !== undefined && (await options.claim(image))) {
    try {
      await mountWorkspaceFilesystem(image, mountPoint);
      await rmdir(`${mountPoint}/lost+found`).catch(() => undefined);
      // A pool image's root is root's: it becomes the job user's here, as mkfs's root_owner makes it on the path below.
      await chown(mountPoint, owner.uid, owner.gid);
      await chmod(mountPoint, 0o700);
      return;
    } catch {
      // An image that will not mount is no loss: it goes, and this create makes its own.
      await unmountWorkspaceFilesystem(mountPoint).catch(() => undefined);
      await rm(image, { force: true }).catch(() => undefined);
    }
  }
  try {
    const handle = await open(image, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.truncate(options.bytes);
    } finally {
      await handle.close();
    }
    await run(options.mkfsPath, mkfsArgs(image, owner)).catch((error: unknown) => {
      throw new ProviderError(`mkfs.ext4 failed on the workspace image: ${stderrOf(error)}`, {
        cause: error,
        hint: 'check e2fsprogs (scripts/setup-native.sh); doctor checks the native provider',
        action: nextAction('doctor', { provider: 'native' }),
      });
    });
    await mountWorkspaceFilesystem(image, mountPoint);
    // mkfs always makes lost+found; a workspace starts empty (fsck recreates it if it ever needs it).
    await rmdir(`${mountPoint}/lost+found`).catch(() => undefined);
    await chmod(mountPoint, 0o700);
  } catch (error) {
    await unmountWorkspaceFilesystem(mountPoint).catch(() => undefined);
    await rm(image, { force: true }).catch(() => undefined);
    throw error;
  }
}

export async function mountWorkspaceFilesystem(image: string, mountPoint: string): Promise<void> {
  await run(MOUNT, ['-t', 'ext4', '-o', MOUNT_OPTIONS, image, mountPoint]).catch((error: unknown) => {
    throw new ProviderError(`cannot loop-mount the workspace image: ${stderrOf(error)}`, {
      cause: error,
      hint: 'the native provider needs root and free loop devices for per-workspace storage; doctor checks it',
      action: nextAction('doctor', { provider: 'native' }),
    });
  });
}

/**
 * Unmounts `mountPoint` if something is mounted there: a plain umount first
 * (the loop device is then released at once), a lazy one when the filesystem
 * is still busy (it goes when its last user does, and the device with it).
 * Returns how it went; afterwards nothing is mounted at `mountPoint` in our
 * mount namespace.
 */
export async function unmountWorkspaceFilesystem(mountPoint: string): Promise<'not-mounted' | 'unmounted' | 'lazily-unmounted'> {
  if (!isMountPoint(mountPoint)) return 'not-mounted';
  try {
    await run(UMOUNT, [mountPoint]);
    return 'unmounted';
  } catch (error) {
    if (!isMountPoint(mountPoint)) return 'unmounted';
    await run(UMOUNT, ['-l', mountPoint]).catch((lazy: unknown) => {
      throw new ProviderError(`cannot unmount ${mountPoint}: ${stderrOf(lazy)}`, {
        hint: 'something still holds it open; once it lets go, apply the repairs',
        action: nextAction('doctor', { repair: true, apply: true }),
        cause: error,
      });
    });
    return 'lazily-unmounted';
  }
}

/**
 * Is a filesystem other than its parent's mounted at `dir`? Two stats
 * (microseconds): used on every call that touches files, so a host reboot
 * (which drops mounts but keeps images) is healed by remounting.
 */
export function isMountedOver(dir: string, parent: string): boolean {
  const inner = statIfAny(dir);
  const outer = statIfAny(parent);
  return inner !== undefined && outer !== undefined && inner.dev !== outer.dev;
}

/** Is `path` a mount point in this process's mount namespace (per /proc/self/mountinfo)? */
export function isMountPoint(path: string): boolean {
  try {
    const escaped = path.replace(/[\\ \t\n]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`);
    return readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .some((line) => line.split(' ')[4] === escaped);
  } catch {
    return false;
  }
}

/** Bytes allocated on the workspace filesystem (statfs: no walk of the tree). */
export async function usedBytes(mountPoint: string): Promise<number> {
  // Synchronous, as assertRoomForJob's: microseconds of syscall against a thread-pool round trip after every job (#20).
  const info = statfsSync(mountPoint);
  return (info.blocks - info.bfree) * info.bsize;
}

export interface LoopDevice {
  /** `/dev/loopN` */
  device: string;
  /** The image path as the kernel recorded it when the device was attached. */
  backingFile: string;
  /** The image was removed while the device still held it. */
  deleted: boolean;
}

/** Loop devices whose image lies under `dir` (from /sys/block/loop*\/loop/backing_file). */
export function loopDevicesUnder(dir: string): LoopDevice[] {
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const found: LoopDevice[] = [];
  let names: string[];
  try {
    names = readdirSync('/sys/block').filter((name) => /^loop\d+$/.test(name));
  } catch {
    return found;
  }
  for (const name of names) {
    let backing: string;
    try {
      backing = readFileSync(`/sys/block/${name}/loop/backing_file`, 'utf8').replace(/\n$/, '');
    } catch {
      continue; // not attached
    }
    const deleted = backing.endsWith(' (deleted)');
    const backingFile = deleted ? backing.slice(0, -' (deleted)'.length) : backing;
    if (backingFile.startsWith(prefix)) found.push({ device: `/dev/${name}`, backingFile, deleted });
  }
  return found.sort((a, b) => a.device.localeCompare(b.device, 'en', { numeric: true }));
}

/**
 * Waits until no loop device holds an image under `dir`: the kernel clears an
 * autoclear device shortly after its last close (about 10 ms here), not
 * during umount(2). True when released within `timeoutMs`.
 */
export async function waitForLoopRelease(dir: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (loopDevicesUnder(dir).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Detaches a loop device (with autoclear set by mount, a busy one is released when its last user closes). */
export async function detachLoopDevice(device: string): Promise<void> {
  if (!/^\/dev\/loop\d+$/.test(device))
    throw new ProviderError(`not a loop device: ${device}`, { hint: 'this is a headspace bug: only /dev/loopN devices are ever detached' });
  const losetup = await firstExecutable(LOSETUP_CANDIDATES);
  if (losetup === undefined) throw new ProviderError('losetup not found', { hint: 'install util-linux (mount)' });
  await run(losetup, ['-d', device]).catch((error: unknown) => {
    throw new ProviderError(`cannot detach ${device}: ${stderrOf(error)}`, {
      hint: 'a lazily unmounted filesystem may still hold it; in a minute, apply the repairs again',
      action: nextAction('doctor', { repair: true, apply: true }),
      cause: error,
    });
  });
}

function stderrOf(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr;
  return (typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim() : (error as Error).message).split('\n')[0]!.slice(0, 300);
}

function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

async function firstExecutable(candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}
