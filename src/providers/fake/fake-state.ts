/**
 * The fake provider's state and its lock: every workspace, its files and its
 * running jobs, in this object or (with `persistPath`) in one JSON file
 * shared by every process, so a multi-step shell session works. Changes are
 * read-modify-write under a lock file, so two processes' changes both land
 * (without it, concurrent creates in two processes lost one workspace:
 * found by the concurrency suite). A lock whose holder is gone (kill -9
 * mid-write) is taken over.
 */
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { EngineError, ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { currentOwner, isOwnerAlive, type Owner } from '../../core/store/owner.js';

export interface FakeWorkspace {
  profile: string;
  files: Record<string, string>; // path -> base64
  storageBytes: number;
  storageBudget: number;
  /**
   * The jobs running now, by job id (a policy may allow several at once,
   * #12 item 8). Absent in state saved before it existed.
   */
  jobs?: Record<string, FakeJob>;
  /** The job identity the engine allocated (recorded only: nothing runs as a uid here). Absent in state saved before it existed. */
  jobUser?: { uid: number; gid: number };
  /** Symbolic links (#14): path -> target text, never followed. Absent in state saved before it existed. */
  links?: Record<string, string>;
  /** Permission bits of files whose mode is not 0644 (#14). Absent in state saved before it existed. */
  modes?: Record<string, number>;
  /** Snapshots (#14): each checkpoint's copy of the tree, by checkpoint id. Absent in state saved before it existed. */
  checkpoints?: Record<string, FakeTree>;
}

/** A workspace's whole tree as a checkpoint keeps it. */
export interface FakeTree {
  files: Record<string, string>;
  links: Record<string, string>;
  modes: Record<string, number>;
}

/** Removes `path` and everything under it: files, links and their modes. */
export function removeUnder(ws: FakeWorkspace, path: string): void {
  const under = (p: string) => p === path || p.startsWith(`${path}/`);
  for (const p of Object.keys(ws.files)) if (under(p)) delete ws.files[p];
  for (const p of Object.keys(ws.links ?? {})) if (under(p)) delete ws.links![p];
  for (const p of Object.keys(ws.modes ?? {})) if (under(p)) delete ws.modes![p];
}

export interface FakeJob {
  /** The process running the job: a job whose process is gone is not running (crash). */
  owner: Owner;
  stopRequested: boolean;
  /**
   * Bytes its `alloc` holds until it ends: the jobs of a workspace share its
   * memory budget, as a cgroup's do, so an alloc past what the others leave
   * is killed for memory.
   */
  heldBytes: number;
}

export interface FakeState {
  workspaces: Record<string, FakeWorkspace>;
}

export interface FakeStore {
  /** The latest state (read from the file when there is one). */
  load(): FakeState;
  /** Runs `fn` on the latest state under the lock and saves what it changed. */
  mutate<T>(fn: (state: FakeState) => T): T;
}

export function fakeStore(persistPath: string | undefined): FakeStore {
  let memory: FakeState = { workspaces: {} };
  /**
   * The file's identity when `memory` was read from it or written to it:
   * inode, size and mtime. Every save is a rename onto it (a new inode), so
   * an unchanged identity means no process has saved since, and the parse is
   * skipped: a running job asks whether it was stopped every 20 ms, and each
   * ask parsed the whole file (every workspace's files), which grew with the
   * state (#20). Callers of load() only read what it returns.
   */
  let stamp: string | null = null;
  const identity = (file = persistPath!): string | null => {
    try {
      const st = statSync(file, { bigint: true });
      return `${st.ino}:${st.size}:${st.mtimeNs}`;
    } catch {
      return null;
    }
  };

  const load = (): FakeState => {
    if (!persistPath) return memory;
    const now = identity();
    if (now !== null && now === stamp) return memory;
    try {
      memory = JSON.parse(readFileSync(persistPath, 'utf8')) as FakeState;
      stamp = now;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new ProviderError(`fake provider state is unreadable: ${(error as Error).message}`, {
          hint: `the fake provider's state file ${persistPath} is damaged: remove it to start the fake afresh (its workspaces are lost)`,
        });
      memory = { workspaces: {} };
      stamp = null;
    }
    return memory;
  };
  const save = (state: FakeState): void => {
    memory = state;
    if (!persistPath) return;
    mkdirSync(dirname(persistPath), { recursive: true });
    const tmp = `${persistPath}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(state));
    // Taken before the rename (which keeps inode, size and mtime): a save by another process right after ours then
    // reads as a change, never as ours.
    const written = identity(tmp);
    renameSync(tmp, persistPath);
    stamp = written;
  };
  return {
    load,
    mutate(fn) {
      const release = persistPath ? lockFile(`${persistPath}.lock`) : () => undefined;
      try {
        const state = load();
        let out: ReturnType<typeof fn>;
        try {
          out = fn(state);
        } catch (error) {
          // fn may have changed the state before it threw: nothing of that was saved, so read the file afresh next time.
          stamp = null;
          throw error;
        }
        save(state);
        return out;
      } finally {
        release();
      }
    },
  };
}

/** The workspace `id`, or WORKSPACE_NOT_FOUND. */
export function need(state: FakeState, id: string): FakeWorkspace {
  const ws = state.workspaces[id];
  if (!ws) throw new EngineError('WORKSPACE_NOT_FOUND', `the fake provider has no workspace ${id}`, { hint: 'list the workspaces', action: nextAction('ls') });
  return ws;
}

/** Counts the workspace's bytes again after its files changed. */
export function recount(ws: FakeWorkspace): void {
  ws.storageBytes = Object.values(ws.files).reduce((n, b64) => n + Buffer.from(b64, 'base64').length, 0);
}

/** Takes the lock file (waiting up to 10 s, taking over a dead holder's); returns its release. */
function lockFile(file: string): () => void {
  mkdirSync(dirname(file), { recursive: true });
  const me = currentOwner();
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
      return () => {
        try {
          unlinkSync(file);
        } catch {
          // Already taken over as stale: nothing to release.
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readOwner(file);
    if (isStaleLock(file, holder)) {
      try {
        unlinkSync(file);
      } catch {
        // Another waiter took it over first.
      }
      continue;
    }
    if (Date.now() > deadline)
      throw new ProviderError(`the fake provider's state is locked by process ${holder?.pid ?? '?'}`, {
        hint: 'wait for it to finish, or ask doctor',
        action: nextAction('doctor', { provider: 'fake' }),
      });
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
  }
}

/** Who holds a lock file, when it names anyone. */
export function readOwner(file: string): Owner | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Owner>;
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, started: typeof parsed.started === 'string' ? parsed.started : null } : undefined;
  } catch {
    return undefined;
  }
}

/** A lock is stale when its holder is gone, or when it is empty (its writer died between create and write) and older than 2 s. */
export function isStaleLock(file: string, holder: Owner | undefined): boolean {
  return holder !== undefined ? !isOwnerAlive(holder) : isOlderThan(file, 2000);
}

function isOlderThan(file: string, ms: number): boolean {
  try {
    return statSync(file).mtimeMs < Date.now() - ms;
  } catch {
    return false;
  }
}
