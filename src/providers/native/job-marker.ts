/**
 * The running-job marker, `workspaces/<id>/job.json`: who runs what, so that
 * stop() in another process knows a job is live, and a second concurrent run
 * is refused. Created with O_EXCL; a marker whose owner process is gone
 * (crashed: bwrap's --die-with-parent took the job with it) is stale and replaced.
 *
 * Synchronous I/O: these are tiny local files touched twice per job, and the
 * async API's thread-pool round trips cost ~1 ms per job on a loaded host.
 */
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { EngineError } from '../../core/errors.js';
import { currentOwner, isOwnerAlive } from '../../core/store/owner.js';

export interface JobMarker {
  jobId: string;
  /** The Node process that owns the run() call. */
  ownerPid: number;
  /** The owner's kernel start time (see core/store/owner.ts): with pid_max at 32768, a pid alone is reused within minutes. */
  ownerStarted: string | null;
  startedAt: string;
}

export async function readJobMarker(path: string): Promise<JobMarker | undefined> {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<JobMarker>;
    if (typeof parsed.jobId !== 'string' || typeof parsed.ownerPid !== 'number') return undefined;
    return { jobId: parsed.jobId, ownerPid: parsed.ownerPid, ownerStarted: typeof parsed.ownerStarted === 'string' ? parsed.ownerStarted : null, startedAt: String(parsed.startedAt ?? '') };
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Is the marker's owner still the process that wrote it (pid and start time)? */
export function markerOwnerAlive(marker: JobMarker): boolean {
  return isOwnerAlive({ pid: marker.ownerPid, started: marker.ownerStarted });
}

/** The live marker, or undefined when idle (a stale marker counts as idle). */
export async function liveJob(path: string): Promise<JobMarker | undefined> {
  const marker = await readJobMarker(path);
  return marker !== undefined && markerOwnerAlive(marker) ? marker : undefined;
}

export async function acquireJobMarker(path: string, workspaceId: string, jobId: string): Promise<void> {
  const marker: JobMarker = { jobId, ownerPid: process.pid, ownerStarted: currentOwner().started, startedAt: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(marker), { flag: 'wx' });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const live = await liveJob(path);
      if (live !== undefined) {
        throw new EngineError('WORKSPACE_BUSY', `workspace ${workspaceId} is running job ${live.jobId}`, { hint: `wait for it, or stop it: headspace stop ${workspaceId} --apply` });
      }
      removeQuietly(path);
    }
  }
  throw new EngineError('WORKSPACE_BUSY', `workspace ${workspaceId} is busy`, { hint: `another process runs a job in it: wait for it, or end it with: headspace stop ${workspaceId} --apply` });
}

export async function releaseJobMarker(path: string, jobId: string): Promise<void> {
  const marker = await readJobMarker(path);
  if (marker?.jobId === jobId && marker.ownerPid === process.pid) removeQuietly(path);
}

/** unlink, where an absent file is fine. */
export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // ENOENT: already gone.
  }
}
