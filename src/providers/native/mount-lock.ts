/**
 * The locks that make "is it mounted? if not, mount it" one step against
 * every other mount or unmount of the same thing.
 *
 * A workspace's files (fs/<id>): a layer switch (checkpoint, restore)
 * unmounts them and mounts the new stack; a call that met the gap (inspect,
 * doctor, a read) used to mount the old stack itself, and the switch then
 * mounted the new one on top of it: two overlays stacked, the lower one left
 * mounted (with its loop device) after destroy (red team, session 13: 1 of 20
 * checkpoints beside an inspect loop). Locked by <workspace>/mount.lock, which
 * the switch's shell takes too (layered-storage.ts).
 *
 * A layer store's image (img/<store>): a parent and its forks each mount the
 * parent's image when they find it unmounted (after a reboot), and two at once
 * mounted it twice through two loop devices, one left after every destroy
 * (red team round 2: 2 of 20 rounds). Locked on the image file itself, opened
 * without creating it: its inode stays the same when a destroyed parent's
 * image is moved to stores/ for its forks.
 *
 * Each is an flock(1) on a descriptor this process holds open: the kernel
 * drops it when the descriptor closes, so a killed caller never leaves a lock
 * behind. A holder that does not let go within WAIT_SECONDS (a stopped call, a
 * hung mount) is named busy instead of waited on for ever.
 */
import { spawn } from 'node:child_process';
import { closeSync, constants, openSync } from 'node:fs';
import { EngineError } from '../../core/errors.js';

const FLOCK = '/usr/bin/flock';
const WAIT_SECONDS = 60;

/** Runs `fn` holding the workspace's mount lock; `gone()` answers instead when the lock file cannot be made (its folder is gone). */
export async function withMountLock<T>(lockPath: string, what: string, fn: () => Promise<T>, gone: () => T | Promise<T>): Promise<T> {
  let fd: number;
  try {
    fd = openSync(lockPath, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW, 0o600);
  } catch {
    return gone();
  }
  return holding(fd, what, fn);
}

/** Runs `fn` holding the lock on an existing file (a layer store's image); `missing()` answers when it does not exist. */
export async function withImageLock<T>(image: string, what: string, fn: () => Promise<T>, missing: () => T | Promise<T>): Promise<T> {
  let fd: number;
  try {
    fd = openSync(image, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return missing();
  }
  return holding(fd, what, fn);
}

async function holding<T>(fd: number, what: string, fn: () => Promise<T>): Promise<T> {
  try {
    // flock(1) on the inherited descriptor (fd 3 in the child): the lock belongs to the open file, which this process
    // keeps open after the child exits, so it is held until the close below.
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(FLOCK, ['-x', '-w', String(WAIT_SECONDS), '3'], { stdio: ['ignore', 'ignore', 'ignore', fd] });
      child.once('error', () => resolve(null));
      child.once('close', (status) => resolve(status));
    });
    if (code !== 0)
      throw new EngineError('WORKSPACE_BUSY', `${what} is being mounted or switched by another process, which did not let go within ${WAIT_SECONDS} s`, {
        hint: 'wait for the other headspace call on it to end (a stopped call holds it: resume or end it), then try again',
      });
    return await fn();
  } finally {
    closeSync(fd);
  }
}
