/**
 * Host-side job markers, so any process with the same provider root sees
 * which jobs of a workspace are running and can stop them (#12 item 3):
 *  - `<root>/jobs/<workspace>/<job>.run` holds the pid of the process whose
 *    run() is waiting on the job's exec; a marker whose process is gone is
 *    stale (that run() died with it) and is not a live job;
 *  - `<job>.stop` is the stop sentinel: written by stop() BEFORE it signals,
 *    read by run() when the exec ends, so the run reports stopped=true and
 *    both the job and the stop read cancelled (the seed's docker provider
 *    reported a stopped job as failed: this is what prevents it).
 *  - `stop-all` is written by a stop that found no live job to name (a run
 *    whose caller died leaves its exec running): `<started> [<ended>]` in
 *    epoch ms. A run begun while it was under way (and so not seen by it)
 *    whose job then ended by a signal was ended by it: without this, that
 *    run reported a plain signal death while the stop said it had stopped
 *    the job (docker conformance, a stop racing a run's start).
 * They live on this host under the provider root, which no job can reach:
 * which job is live and whether it was stopped (what stop acts on and what
 * status a run records) never come from a file inside the container (#19).
 * Small synchronous writes: one each per job, cheaper than the thread-pool hops.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface JobMarkers {
  /** Records the run as live; returns when (epoch ms), for `stoppedAllSince`. */
  begin(workspaceId: string, jobId: string): number;
  end(workspaceId: string, jobId: string): void;
  live(workspaceId: string): string[];
  markStopped(workspaceId: string, jobId: string): void;
  wasStopped(workspaceId: string, jobId: string): boolean;
  /** Before a stop of no named job ends what runs: returns when it started. */
  beginStopAll(workspaceId: string): number;
  /** After it: kept with its end when it ended anything (or may have), removed when it found nothing. */
  endStopAll(workspaceId: string, startedAt: number, endedSomething: boolean): void;
  /** Whether a stop of no named job was under way, or ended, after `beganAt` (a run's begin). */
  stoppedAllSince(workspaceId: string, beganAt: number): boolean;
  forget(workspaceId: string): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Not a job's marker: job markers end in .run or .stop. */
const STOP_ALL = 'stop-all';

export function jobMarkers(root: string): JobMarkers {
  const dir = (ws: string) => join(root, 'jobs', ws);
  return {
    begin(ws, job) {
      const at = Date.now();
      mkdirSync(dir(ws), { recursive: true, mode: 0o700 });
      rmSync(join(dir(ws), `${job}.stop`), { force: true });
      writeFileSync(join(dir(ws), `${job}.run`), `${process.pid}\n`);
      return at;
    },
    end(ws, job) {
      rmSync(join(dir(ws), `${job}.run`), { force: true });
      rmSync(join(dir(ws), `${job}.stop`), { force: true });
    },
    live(ws) {
      let names: string[];
      try {
        names = readdirSync(dir(ws));
      } catch {
        return [];
      }
      const jobs: string[] = [];
      for (const name of names.sort()) {
        if (!name.endsWith('.run')) continue;
        const pid = Number(readFileSync(join(dir(ws), name), 'utf8').trim());
        if (Number.isInteger(pid) && pid > 0 && alive(pid)) jobs.push(name.slice(0, -'.run'.length));
        else rmSync(join(dir(ws), name), { force: true });
      }
      return jobs;
    },
    markStopped(ws, job) {
      mkdirSync(dir(ws), { recursive: true, mode: 0o700 });
      writeFileSync(join(dir(ws), `${job}.stop`), `${process.pid}\n`);
    },
    wasStopped(ws, job) {
      return existsSync(join(dir(ws), `${job}.stop`));
    },
    beginStopAll(ws) {
      const at = Date.now();
      mkdirSync(dir(ws), { recursive: true, mode: 0o700 });
      writeFileSync(join(dir(ws), STOP_ALL), `${at}\n`);
      return at;
    },
    endStopAll(ws, startedAt, endedSomething) {
      if (endedSomething) writeFileSync(join(dir(ws), STOP_ALL), `${startedAt} ${Date.now()}\n`);
      else rmSync(join(dir(ws), STOP_ALL), { force: true });
    },
    stoppedAllSince(ws, beganAt) {
      let text: string;
      try {
        text = readFileSync(join(dir(ws), STOP_ALL), 'utf8');
      } catch {
        return false;
      }
      const [, ended] = text.trim().split(' ').map(Number);
      // Under way (no end yet), or ended after the run began.
      return ended === undefined || !(ended < beganAt);
    },
    forget(ws) {
      rmSync(dir(ws), { recursive: true, force: true });
    },
  };
}
