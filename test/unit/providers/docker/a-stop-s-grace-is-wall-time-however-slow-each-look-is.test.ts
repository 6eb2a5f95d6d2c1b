/**
 * The docker stop script gives a job that ignores TERM its grace in wall
 * time, then KILLs it. It once counted only its own 50 ms sleeps: each scan
 * of /proc between them (slow with many processes, or under load) went
 * uncounted, and a 1 s grace lasted several seconds.
 *
 * Run here with the host's POSIX sh, as the container's would run it, with
 * its `kill -1` narrowed to one victim (on the host it would signal every
 * process of that uid) and each sleep made five times longer than the 50 ms
 * the old loop counted: the slow round, made reproducible.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { STOP_SCRIPT } from '../../../../src/providers/docker/plan-job.js';

const isRoot = process.getuid?.() === 0;
// A uid no account of this machine has, so the victim is its only process.
const JOB_UID = 64_917;
const victims: number[] = [];
afterAll(() => {
  for (const pid of victims) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** A process of JOB_UID that ignores TERM, as a job trapping it would. */
function startVictim(): number {
  const child = spawn('/bin/sh', ['-c', 'trap "" TERM; exec sleep 300'], { uid: JOB_UID, gid: JOB_UID, stdio: 'ignore', detached: true });
  child.unref();
  victims.push(child.pid!);
  return child.pid!;
}

/** Runs the stop script with `kill -1` aimed at `victim` alone and every sleep of the script 0.25 s long. */
function runStop(victim: number, graceMs: number): { out: string; seconds: number } {
  const harness = `kill() { case "$1" in -9) command kill -9 ${victim} 2>/dev/null ;; esac; return 0; }
sleep() { command sleep 0.25; }
`;
  const started = process.hrtime.bigint();
  const run = spawnSync('/bin/sh', ['-c', harness + STOP_SCRIPT, 'headspace-stop', String(graceMs), String(JOB_UID)], { encoding: 'utf8', timeout: 60_000 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  expect(run.status, run.stderr).toBe(0);
  return { out: run.stdout.trim(), seconds };
}

/** A file of /proc/<pid>, or '' once the process is gone. */
function procFile(pid: number, name: string): string {
  try {
    return readFileSync(`/proc/${pid}/${name}`, 'utf8');
  } catch {
    return '';
  }
}

/** Whether `pid` is still a live process (a zombie counts as ended). */
const alive = (pid: number): boolean => !/^State:\s+Z/m.test(procFile(pid, 'status')) && procFile(pid, 'status') !== '';

describe.runIf(isRoot)(`the docker stop script's grace${isRoot ? '' : ' (skipped: starting a process of another uid needs root)'}`, () => {
  it('gives a job that ignores TERM its whole grace and no more than a round past it, then ends it', async () => {
    const victim = startVictim();
    // Wait until the child is the job uid's sleep, not still the sh before its exec.
    for (let i = 0; i < 100 && !procFile(victim, 'cmdline').includes('sleep'); i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const { out, seconds } = runStop(victim, 1000);
    expect(out).toBe('empty');
    expect(alive(victim)).toBe(false);
    // The grace was given: TERM alone would not have ended it.
    expect(seconds).toBeGreaterThanOrEqual(1);
    // One slow round (a scan and a 0.25 s sleep) past the grace, and the KILL; counting sleeps took ≥ 5 s here.
    expect(seconds).toBeLessThan(3);
  });

  it('says none at once when the job uid has no process', () => {
    // A pid no process can have: the script must not reach its kill at all.
    const { out, seconds } = runStop(2_147_483_647, 5000);
    expect(out).toBe('none');
    expect(seconds).toBeLessThan(3);
  });
});
