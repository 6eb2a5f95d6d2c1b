/**
 * The polite half of stop (#12 item 3): SIGTERM to the job's own processes,
 * then a grace for them to finish, so a job's TERM handler runs (flushing,
 * cleaning up, printing what it was doing) and its output reaches the run.
 * The caller kills whatever remains afterwards.
 *
 * bubblewrap's own processes are left out: its pid-namespace init does not
 * pass TERM on, and ending it would SIGKILL every process of the job at once
 * (the kernel kills a namespace whose init exits), which is exactly what the
 * grace is for avoiding. An idle standby launcher runs nothing and is left
 * too. A job process that names itself `bwrap` only forgoes its TERM: the
 * kill after the grace still ends it.
 */
import { readFileSync } from 'node:fs';
import type { CgroupDriver } from './cgroup-driver.js';
import { sleep } from './cgroup-fs.js';
import { isIdleLauncher } from './launch-job.js';

/** Sends TERM, then waits up to `graceMs` for the cgroup to empty; true when it did. */
export async function terminateJob(driver: CgroupDriver, cgroup: string, graceMs: number): Promise<boolean> {
  for (const pid of await driver.pids(cgroup)) {
    if (commOf(pid) === 'bwrap' || isIdleLauncher(pid)) continue;
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // ESRCH: it ended meanwhile.
    }
  }
  const deadline = Date.now() + graceMs;
  for (;;) {
    if (await driver.isEmpty(cgroup)) return true;
    // Only our idle standby left: the job is over.
    if ((await driver.pids(cgroup)).every((pid) => isIdleLauncher(pid))) return true;
    if (Date.now() >= deadline) return false;
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
  }
}

function commOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}
