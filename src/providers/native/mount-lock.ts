/**
 * The lock that makes "is the workspace's files mounted? if not, mount them"
 * one step against every other mount or unmount of them. A layer switch
 * (checkpoint, restore) unmounts fs/<id> and mounts the new stack; a call
 * that met the gap (inspect, doctor, a read) used to mount the old stack
 * itself, and the switch then mounted the new one on top of it: two overlays
 * stacked, the lower one left mounted (with its loop device) after destroy,
 * and, had the read's mount landed last, the old chain on top (red team,
 * session 13: 1 of 20 checkpoints beside an inspect loop).
 *
 * An flock(1) on <workspace>/mount.lock, held by a child process for as long
 * as `fn` runs: the kernel drops it when the holder dies, so a killed caller
 * never leaves the workspace locked. The switch's shell takes the same lock
 * itself (layered-storage.ts).
 */
import { spawn } from 'node:child_process';

const FLOCK = '/usr/bin/flock';

/** Runs `fn` holding the lock; `gone()` answers instead when the lock file cannot be made (the workspace's folder is gone). */
export async function withMountLock<T>(lockPath: string, fn: () => Promise<T>, gone: () => T | Promise<T>): Promise<T> {
  const holder = spawn(FLOCK, ['-x', lockPath, '/bin/sh', '-c', 'echo held; read _ || true'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => holder.once('close', (code) => resolve(code)));
  const held = await new Promise<boolean>((resolve) => {
    holder.stdout.once('data', () => resolve(true));
    holder.once('error', () => resolve(false));
    void exited.then(() => resolve(false));
  });
  if (!held) {
    await exited;
    return gone();
  }
  try {
    return await fn();
  } finally {
    holder.stdin.end();
    await exited;
  }
}
