/**
 * Small file helpers shared by the cgroup v1 and v2 drivers: finding the
 * mounts, reading pid lists and counters, removing a directory that the
 * kernel still reports busy for a moment after its last process died.
 *
 * Reads and writes of cgroup files are synchronous on purpose: they are
 * in-memory kernel files that answer in microseconds, and the libuv
 * thread-pool round trip of the async API (four hops for one readFile) cost
 * 4x the work itself on a loaded 2-core host, about 1 ms per five files.
 * A job touches a few dozen of them per run.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFile, rmdir } from 'node:fs/promises';

export interface CgroupMount {
  /** Mount point, e.g. /sys/fs/cgroup/memory. */
  dir: string;
  version: 1 | 2;
  /** v1: controllers named in the super options (memory, cpu, …). v2: empty. */
  controllers: string[];
}

/** Parses /proc/self/mountinfo text into cgroup mounts. Pure, for tests. */
export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split('\n')) {
    const [left, right] = line.split(' - ');
    if (left === undefined || right === undefined) continue;
    const dir = unescapeMountPath(left.split(' ')[4] ?? '');
    const [fstype, , superOptions = ''] = right.split(' ');
    if (fstype === 'cgroup2') mounts.push({ dir, version: 2, controllers: [] });
    else if (fstype === 'cgroup')
      mounts.push({ dir, version: 1, controllers: superOptions.split(',').filter((o) => !o.includes('=') && o !== 'rw' && o !== 'ro') });
  }
  return mounts;
}

function unescapeMountPath(raw: string): string {
  return raw.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export async function readCgroupMounts(): Promise<CgroupMount[]> {
  return parseCgroupMounts(await readFile('/proc/self/mountinfo', 'utf8'));
}

/** The file's text, or undefined when it cannot be read (a missing cgroup, say). */
export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

export async function readPids(procsFile: string): Promise<number[]> {
  const text = readText(procsFile) ?? '';
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}

export async function readNumber(file: string): Promise<number | undefined> {
  const text = readText(file);
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  return Number.isFinite(value) ? value : undefined;
}

/** Reads `key value` lines (memory.oom_control, memory.events, cpu.stat). */
export async function readKeyed(file: string): Promise<Map<string, number>> {
  const text = readText(file) ?? '';
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key !== undefined && value !== undefined && key !== '') out.set(key, Number(value));
  }
  return out;
}

export async function writeText(file: string, value: string): Promise<void> {
  writeFileSync(file, value);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * rmdir with retries: `pids.current` and friends can lag 1–2 s after the last
 * process is gone, and rmdir says EBUSY until then. True when gone.
 */
export async function removeCgroupDir(dir: string, timeoutMs = 5000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // A killed process usually leaves within a few ms: poll soon, then back off to 25 ms (a flat 25 ms wait was most of a destroy's cgroup step, #20).
  for (let wait = 2; ; wait = Math.min(25, wait * 2)) {
    try {
      await rmdir(dir);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return true;
      if (code !== 'EBUSY' || Date.now() > deadline) return false;
      // A live process in it (a standby another process placed after the kill): waiting cannot empty it, and a
      // supervisor's standby waits for its next job until the supervisor idles out (30 s). The caller kills again.
      if ((await readPids(join(dir, 'cgroup.procs'))).length > 0) return false;
      await sleep(wait);
    }
  }
}

/** SIGKILL each pid; a pid that already exited is fine. */
export function killPids(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: already gone. EPERM cannot happen for root; for a non-root owner the pids are its own.
    }
  }
}

/**
 * The job children (`job-<k>`, see layout.ts jobCgroupName) of a cgroup
 * directory; none when it is missing. Only that name: a cgroup's own files
 * never start with it, and nothing else of ours nests.
 */
export function jobChildren(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((entry) => /^job-\d+$/.test(entry))
      .map((entry) => join(dir, entry));
  } catch {
    return [];
  }
}
