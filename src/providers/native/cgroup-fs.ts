/**
 * Small file helpers shared by the cgroup v1 and v2 drivers: finding the
 * mounts, reading pid lists and counters, removing a directory that the
 * kernel still reports busy for a moment after its last process died.
 */
import { readFile, rmdir, writeFile } from 'node:fs/promises';

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
    else if (fstype === 'cgroup') mounts.push({ dir, version: 1, controllers: superOptions.split(',').filter((o) => !o.includes('=') && o !== 'rw' && o !== 'ro') });
  }
  return mounts;
}

function unescapeMountPath(raw: string): string {
  return raw.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export async function readCgroupMounts(): Promise<CgroupMount[]> {
  return parseCgroupMounts(await readFile('/proc/self/mountinfo', 'utf8'));
}

export async function readPids(procsFile: string): Promise<number[]> {
  const text = await readFile(procsFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}

export async function readNumber(file: string): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  const value = Number(text.trim());
  return Number.isFinite(value) ? value : undefined;
}

/** Reads `key value` lines (memory.oom_control, memory.events, cpu.stat). */
export async function readKeyed(file: string): Promise<Map<string, number>> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [key, value] = line.trim().split(/\s+/);
    if (key !== undefined && value !== undefined && key !== '') out.set(key, Number(value));
  }
  return out;
}

export async function writeText(file: string, value: string): Promise<void> {
  await writeFile(file, value);
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
  for (;;) {
    try {
      await rmdir(dir);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return true;
      if (code !== 'EBUSY' || Date.now() > deadline) return false;
      await sleep(25);
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
