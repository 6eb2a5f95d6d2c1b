import { readFileSync } from 'node:fs';

/**
 * Identifies a live process well enough to tell "still running" from "gone,
 * and its pid reused": the pid plus the kernel's start time for it (field 22
 * of /proc/<pid>/stat). Where /proc is absent, the start time is null and
 * liveness falls back to signal 0.
 */
export interface Owner {
  pid: number;
  started: string | null;
}

export function processStartTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

let self: Owner | null = null;

/** This process as an owner; its start time never changes, so it is read once. */
export function currentOwner(): Owner {
  self ??= { pid: process.pid, started: processStartTime(process.pid) };
  return self;
}

export function isOwnerAlive(owner: Owner): boolean {
  if (owner.pid === process.pid) return true;
  if (owner.started !== null) {
    const now = processStartTime(owner.pid);
    return now !== null && now === owner.started;
  }
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
