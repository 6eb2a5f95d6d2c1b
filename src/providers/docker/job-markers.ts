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
 *  - `stop-all.<pid>.<started>` is written by a stop that found no live job
 *    to name (a run whose caller died leaves its exec running), one per stop:
 *    `<started> [<ended>]` in epoch ms. A run begun while one was under way
 *    (and so not seen by it) whose job then ended by a signal was ended by
 *    it: without this, that run reported a plain signal death while the stop
 *    said it had stopped the job (docker conformance, a stop racing a run's
 *    start). One whose stop process died before its end counts no more; one
 *    ended ten minutes ago is removed by the next.
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

/** Not a job's marker (those end in .run or .stop): `stop-all.<pid>.<started>`. */
const STOP_ALL = 'stop-all.';
const stopAllName = (pid: number, startedAt: number) => `${STOP_ALL}${pid}.${startedAt}`;
/** How long an ended stop-all marker is kept: far longer than a run takes to read it after its job ends. */
const STOP_ALL_KEPT_MS = 10 * 60_000;

/** The stop-all markers in a workspace's marker directory, each with its stopping process and its end, if any. */
function stopAlls(folder: string): Array<{ path: string; pid: number; ended: number | undefined }> {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  const found: Array<{ path: string; pid: number; ended: number | undefined }> = [];
  for (const name of names) {
    if (!name.startsWith(STOP_ALL)) continue;
    const pid = Number(name.slice(STOP_ALL.length).split('.')[0]);
    let text: string;
    try {
      text = readFileSync(join(folder, name), 'utf8');
    } catch {
      continue; // removed meanwhile
    }
    const ended = Number(text.trim().split(' ')[1]);
    found.push({ path: join(folder, name), pid, ended: Number.isFinite(ended) ? ended : undefined });
  }
  return found;
}

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
      for (const mark of stopAlls(dir(ws)))
        if (mark.ended === undefined ? !alive(mark.pid) : mark.ended < at - STOP_ALL_KEPT_MS) rmSync(mark.path, { force: true });
      writeFileSync(join(dir(ws), stopAllName(process.pid, at)), `${at}\n`);
      return at;
    },
    endStopAll(ws, startedAt, endedSomething) {
      const path = join(dir(ws), stopAllName(process.pid, startedAt));
      if (endedSomething) writeFileSync(path, `${startedAt} ${Date.now()}\n`);
      else rmSync(path, { force: true });
    },
    stoppedAllSince(ws, beganAt) {
      // Under way (its process alive, no end yet), or ended after the run began.
      return stopAlls(dir(ws)).some((mark) => (mark.ended === undefined ? alive(mark.pid) : !(mark.ended < beganAt)));
    },
    forget(ws) {
      rmSync(dir(ws), { recursive: true, force: true });
    },
  };
}
