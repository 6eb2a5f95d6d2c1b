/**
 * The running-job markers, one per job slot: `workspaces/<id>/job.json` for
 * slot 0 and `job-<k>.json` for slot k of a workspace allowing several jobs
 * at once (#12 item 8). Who runs what, so that stop() in another process
 * knows which jobs are live, and a job past the workspace's concurrency is
 * refused (every slot taken). Created with O_EXCL; a marker whose owner process is gone
 * (crashed: bwrap's --die-with-parent took the job with it) is stale and replaced.
 *
 * Synchronous I/O: these are tiny local files touched twice per job, and the
 * async API's thread-pool round trips cost ~1 ms per job on a loaded host.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EngineError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { currentOwner, isOwnerAlive } from '../../core/store/owner.js';

export interface JobMarker {
  jobId: string;
  /** The Node process that owns the run() call. */
  ownerPid: number;
  /** The owner's kernel start time (see core/store/owner.ts): with pid_max at 32768, a pid alone is reused within minutes. */
  ownerStarted: string | null;
  startedAt: string;
  /** The cgroup the job runs in, when not the workspace's own (a per-job child when jobs run at once). */
  cgroup?: string;
}

/** A live marker and the slot file it was read from. */
export interface SlotMarker extends JobMarker {
  slot: number;
  path: string;
}

/** Slot 0 keeps the one-job name, so a workspace of one job at once looks exactly as before. */
export function slotFileName(slot: number): string {
  return slot === 0 ? 'job.json' : `job-${slot}.json`;
}

/** Is `file` a job slot marker's name, and which slot? */
export function slotOfFile(file: string): number | undefined {
  if (file === 'job.json') return 0;
  const match = /^job-([1-9]\d{0,3})\.json$/.exec(file);
  return match === null ? undefined : Number(match[1]);
}

export async function readJobMarker(path: string): Promise<JobMarker | undefined> {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<JobMarker>;
    if (typeof parsed.jobId !== 'string' || typeof parsed.ownerPid !== 'number') return undefined;
    return {
      jobId: parsed.jobId,
      ownerPid: parsed.ownerPid,
      ownerStarted: typeof parsed.ownerStarted === 'string' ? parsed.ownerStarted : null,
      startedAt: String(parsed.startedAt ?? ''),
      ...(typeof parsed.cgroup === 'string' ? { cgroup: parsed.cgroup } : {}),
    };
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

/** Every live job of the workspace folder `dir`, whatever the slot (stale markers are left out). */
export async function liveJobs(dir: string): Promise<SlotMarker[]> {
  const live: SlotMarker[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return live;
  }
  for (const name of names) {
    const slot = slotOfFile(name);
    if (slot === undefined) continue;
    const path = join(dir, name);
    const marker = await liveJob(path);
    if (marker !== undefined) live.push({ ...marker, slot, path });
  }
  return live.sort((a, b) => a.slot - b.slot);
}

/**
 * Takes the first free slot of `slots` (O_EXCL per slot file: two processes
 * never take the same one), replacing a stale marker; WORKSPACE_BUSY when
 * every slot holds a live job. Returns the slot taken.
 */
export async function acquireJobSlot(
  dir: string,
  workspaceId: string,
  jobId: string,
  slots: number,
  cgroupOf: (slot: number) => string | undefined,
): Promise<number> {
  for (let slot = 0; slot < slots; slot++) {
    const cgroup = cgroupOf(slot);
    const marker: JobMarker = {
      jobId,
      ownerPid: process.pid,
      ownerStarted: currentOwner().started,
      startedAt: new Date().toISOString(),
      ...(cgroup === undefined ? {} : { cgroup }),
    };
    const path = join(dir, slotFileName(slot));
    for (let attempt = 0; attempt < 2; attempt++) {
      if (publishMarker(path, JSON.stringify(marker))) return slot;
      if ((await liveJob(path)) !== undefined) break; // taken: try the next slot
      removeIfStill(path, readFileSafely(path));
    }
  }
  const running = (await liveJobs(dir)).map((m) => m.jobId);
  throw new EngineError(
    'WORKSPACE_BUSY',
    `workspace ${workspaceId} is running ${slots === 1 ? `job ${running[0] ?? ''}`.trim() : `${slots} jobs at once (${running.slice(0, 4).join(', ')})`}`,
    {
      hint: 'wait for one to end, or end them',
      action: nextAction('stop', { workspaceId, apply: true }),
    },
  );
}

/**
 * Publishes `content` at `path` whole or not at all, false when a marker is
 * there already. Written to this process's own temporary first and linked
 * into place (link never replaces: the O_EXCL of the slot): a process killed
 * between an O_EXCL create and its write used to leave an empty job.json that
 * no reader could parse, so doctor neither named it nor repaired it (a CI
 * crash-injection trial killed the CLI in exactly that gap). A temporary a
 * killed process leaves is a leftover (`<marker>.<pid>.tmp`, leftovers.ts).
 */
function publishMarker(path: string, content: string): boolean {
  const temporary = markerTemporaryOf(path, process.pid);
  writeFileSync(temporary, content);
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    removeQuietly(temporary);
  }
}

/** The temporary a process writes a marker through (removeIfStill takes a stale one aside as `<marker>.<pid>.stale-<hex>`). */
function markerTemporaryOf(path: string, pid: number): string {
  return `${path}.${pid}.tmp`;
}

/** A marker's temporary, or a stale marker taken aside, and the pid of the process it belongs to. */
export function markerTemporaryPid(file: string): number | undefined {
  const match = /^job(?:-[1-9]\d{0,3})?\.json\.(\d+)\.(?:tmp|stale-[0-9a-f]+)$/.exec(file);
  return match === null ? undefined : Number(match[1]);
}

function readFileSafely(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Removes the marker at `path` only if it still holds `stale` (red team
 * round 3): two processes that both found a dead owner's marker used to race
 * here, and the second removed the fresh marker the first had just written,
 * so both ran in one slot. Renaming first takes the file atomically; a marker
 * that turns out to be fresh is put back (link: never over another one).
 */
function removeIfStill(path: string, stale: string | undefined): void {
  if (stale === undefined) return;
  const taken = `${path}.${process.pid}.stale-${randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, taken);
  } catch {
    return; // gone already: someone else removed it
  }
  if (readFileSafely(taken) !== stale) {
    try {
      linkSync(taken, path);
    } catch {
      // Another marker is there already: the slot is taken, as the next write will find.
    }
  }
  removeQuietly(taken);
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
