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

/** The state letter (field 3) and start time (field 22) of /proc/<pid>/stat, or null when there is no such process (or no /proc). */
function procStat(pid: number): { state: string; started: string | null } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0] ?? '', started: fields[19] ?? null };
  } catch {
    return null;
  }
}

export function processStartTime(pid: number): string | null {
  return procStat(pid)?.started ?? null;
}

/**
 * A zombie (Z) or dead (X) process has exited: its descriptors and locks are
 * gone, only its exit status waits to be collected. An orphan's zombie waits
 * for init, which on some hosts reaps only every second or two (a container
 * or microVM init; measured 1.4–1.9 s here), and until then its pid and start
 * time still match: counted alive, a killed supervisor kept `wait` and
 * `doctor` from seeing its jobs orphaned for that long (#20).
 */
const EXITED_STATES = new Set(['Z', 'X', 'x']);

let self: Owner | null = null;

/** This process as an owner; its start time never changes, so it is read once. */
export function currentOwner(): Owner {
  self ??= { pid: process.pid, started: processStartTime(process.pid) };
  return self;
}

export function isOwnerAlive(owner: Owner): boolean {
  if (owner.pid === process.pid) return true;
  const stat = procStat(owner.pid);
  if (owner.started !== null) return stat !== null && stat.started === owner.started && !EXITED_STATES.has(stat.state);
  if (stat !== null && EXITED_STATES.has(stat.state)) return false;
  try {
    process.kill(owner.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
