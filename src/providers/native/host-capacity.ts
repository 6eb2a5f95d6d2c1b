/**
 * Measures what this host can give a workspace (Provider.capacity, called at create only;
 * core/policy/host-capacity.ts decides from it). Memory, CPUs and the task
 * table are read once per provider instance; the storage figures at every
 * call, because they change with every file written on the host.
 *
 * Storage: sparse images reserve nothing (reserving with fallocate would take
 * a workspace's whole budget from the host disk at create, and the
 * image's `discard` mount option would punch the reservation out again as
 * soon as files are deleted). Instead, what each existing image may still
 * grow by (apparent size − allocated blocks) is counted as promised, so
 * create admits a new budget only while all remaining budgets fit in the
 * free space; and run() refuses to start a job when the host's free space
 * is below its workspace's remaining budget (someone else filled the disk).
 * Cost measured on the project's VM (median of 200, with the rule applied):
 * 0.06 ms with no workspace, 0.10 ms with 10, 0.27 ms with 100, at create
 * (a create costs 250–650 ms here); one statfs and one lstat per job.
 * What this does not close: two creates racing each other, and images of
 * another HEADSPACE_HOME on the same disk (the per-job check covers both).
 */
import { lstatSync, readdirSync, readFileSync, statfsSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { EngineError } from '../../core/errors.js';
import type { HostCapacity } from '../../core/provider.js';

export type StaticCapacity = Pick<HostCapacity, 'memoryBytes' | 'cpus' | 'tasks'>;

/** MemTotal, CPUs online, min(pid_max, threads-max); a fact that cannot be read is left out. */
export function readStaticCapacity(read: (file: string) => string = (file) => readFileSync(file, 'utf8')): StaticCapacity {
  const facts: StaticCapacity = {};
  const kib = /^MemTotal:\s+(\d+) kB/m.exec(attempt(() => read('/proc/meminfo')) ?? '')?.[1];
  if (kib !== undefined) facts.memoryBytes = Number(kib) * 1024;
  const online = cpus().length;
  if (online > 0) facts.cpus = online;
  const numbers = ['/proc/sys/kernel/pid_max', '/proc/sys/kernel/threads-max']
    .map((f) => Number(attempt(() => read(f))?.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  if (numbers.length > 0) facts.tasks = Math.min(...numbers);
  return facts;
}

/** Bytes an image may still take from the host: its apparent size less what it already holds. */
export function imageRemainingBytes(image: string): number {
  try {
    const info = lstatSync(image);
    return info.isFile() ? Math.max(0, info.size - info.blocks * 512) : 0;
  } catch {
    return 0;
  }
}

/** The filesystem under `workspacesDir` (or its nearest existing ancestor), and what its images may still take. */
export async function storageCapacity(workspacesDir: string, imageOf: (id: string) => string): Promise<NonNullable<HostCapacity['storage']>> {
  const { path, info } = await statfsNearest(workspacesDir);
  let committedBytes = 0;
  for (const name of attempt(() => readdirSync(workspacesDir)) ?? []) committedBytes += imageRemainingBytes(imageOf(name));
  return { path, freeBytes: info.bavail * info.bsize, totalBytes: info.blocks * info.bsize, committedBytes };
}

/**
 * Refuses to start a job whose workspace could fill the host: the host's free
 * space is below what the workspace's image may still grow by.
 */
export async function assertRoomForJob(workspaceId: string, image: string): Promise<void> {
  const remaining = imageRemainingBytes(image);
  if (remaining === 0) return;
  // Synchronous: a statfs of a local filesystem takes microseconds, a trip through libuv's thread pool ~0.1–0.3 ms on every job (#20).
  const info = statfsSync(dirname(image));
  const free = info.bavail * info.bsize;
  if (free < remaining) {
    throw new EngineError(
      'HOST_NO_SPACE',
      `the host has ${mib(free)} free where workspace ${workspaceId} stores its files, less than the ${mib(remaining)} its storage budget may still fill: the job is not started`,
      {
        hint: `free space on the filesystem holding ${dirname(image)}, or export what you need and destroy the workspace`,
      },
    );
  }
}

async function statfsNearest(dir: string): Promise<{ path: string; info: { bavail: number; bsize: number; blocks: number } }> {
  let path = dir;
  for (;;) {
    try {
      return { path, info: statfsSync(path) };
    } catch (error) {
      const parent = dirname(path);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === path) throw error;
      path = parent;
    }
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
