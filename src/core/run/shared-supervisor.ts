/**
 * The shared supervisor of a home (#15): one process that owns every
 * detached job of the home at once. A process per job cost 59 MiB and a
 * node start per job (3.8 jobs/s against 18.3 in the foreground); one
 * process that stays up while jobs come costs one engine for all of them.
 *
 * Starting: two supervisors started at once must end as one. Binding is
 * done under a start lock (a file created O_EXCL, holding the starter's pid
 * and start time; one left by a starter that died is taken over). Under the
 * lock a supervisor binds the socket; if the path is taken and answers, a
 * live supervisor is there and this one exits; if it does not answer
 * (left by a killed supervisor), it is removed and bound again.
 *
 * Ending: once it has had no job and no connection for `idleMs`, it stops
 * accepting (closing the listening socket removes its path) and exits when
 * nothing is left. A caller whose connection the closing refused, or who got
 * no owner line, has recorded nothing and tries again (a new supervisor);
 * a connection accepted keeps the supervisor up until its job ends, so no
 * handed-over job is lost to an idle exit.
 *
 * Ownership: every job is recorded with this process as owner, so kill -9
 * leaves all of them running under a dead owner; reconcile reports them and
 * doctor's repair settles each by the run machine's rules.
 */
import { chmodSync, closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { currentOwner, isOwnerAlive, type Owner } from '../store/owner.js';
import { parseLine, privateDirReady, readLines, supervisorPaths, writeLine, type SupervisorPaths } from './supervisor-socket.js';

export interface SharedSupervisorOptions {
  home: string;
  /** Runs one handed-over job to its terminal record (supervise-job.ts); '' is "the caller died before handing it over". */
  supervise: (jobId: string, handover: string) => Promise<void>;
  idleMs: number;
  /** Read timeouts for a connection's two lines (LINE_TIMEOUTS by default); tests shorten them. */
  lineTimeouts?: { jobLineMs: number; handoverMs: number };
}

/**
 * How long a connected caller may take to send each complete line. A caller
 * that connects and sends nothing, or half a line, would otherwise hold a
 * connection open for ever, and with it the supervisor, which never idles
 * out while a connection is open. Only a complete line moves the clock on:
 * trickling bytes does not. The job line comes at once (detach-job.ts sends
 * it on connect); the handover follows the caller's recording of the job,
 * which may wait on the store's busy timeout (10 s), hence the longer bound.
 * A caller cut off after its job line is treated as one that died before
 * handing over: the job, if it was recorded with this owner, is settled as
 * never launched, as the close handler below does for any such caller.
 */
export const LINE_TIMEOUTS = { jobLineMs: 5_000, handoverMs: 60_000 } as const;

/** 'served' once it has run and gone idle; 'another' when a live supervisor already serves the home; 'unusable' when its directory is not private. */
export async function serveSharedSupervisor(options: SharedSupervisorOptions): Promise<'served' | 'another' | 'unusable'> {
  const paths = supervisorPaths(options.home);
  if (!privateDirReady(paths.dir)) return 'unusable';
  const server = await withStartLock(paths, () => bindUnlessLive(paths.socket));
  if (!server) return 'another';
  chmodSync(paths.socket, 0o600);
  await serve(server, options);
  return 'served';
}

function serve(server: Server, { supervise, idleMs, lineTimeouts = LINE_TIMEOUTS }: SharedSupervisorOptions): Promise<void> {
  const owner = currentOwner();
  const running = new Set<string>();
  const connections = new Map<Socket, string | null>();
  let idle: NodeJS.Timeout | null = null;
  let closing = false;
  return new Promise<void>((resolve) => {
    const settle = () => {
      if (closing) {
        if (running.size === 0 && connections.size === 0) resolve();
        return;
      }
      if (running.size + connections.size > 0) {
        if (idle) clearTimeout(idle);
        idle = null;
      } else {
        idle ??= setTimeout(() => {
          // Stop accepting first: from here on a caller's connect fails and it starts a new supervisor, never hands this one a job.
          closing = true;
          server.close(() => settle());
        }, idleMs);
      }
    };
    const start = (jobId: string, handover: string) => {
      // A job id already in this process's hands is never settled by a second connection naming it (a refused duplicate --job-id).
      if (running.has(jobId)) return;
      running.add(jobId);
      supervise(jobId, handover)
        .catch(() => undefined)
        .finally(() => {
          running.delete(jobId);
          settle();
        });
    };
    server.on('connection', (socket) => {
      connections.set(socket, null);
      settle();
      let handed = false;
      let readTimer = setTimeout(() => socket.destroy(), lineTimeouts.jobLineMs);
      socket.on('error', () => undefined);
      readLines(socket, (line) => {
        const message = parseLine(line);
        const jobId = connections.get(socket);
        clearTimeout(readTimer);
        if (jobId === null || jobId === undefined) {
          if (typeof message?.job !== 'string' || message.job === '') return void socket.destroy();
          connections.set(socket, message.job);
          writeLine(socket, { v: 1, owner });
          readTimer = setTimeout(() => socket.destroy(), lineTimeouts.handoverMs);
          return;
        }
        if (handed) return;
        handed = true;
        if (message?.none !== true) start(jobId, line);
        writeLine(socket, { v: 1, accepted: true });
        socket.end();
      });
      socket.on('close', () => {
        clearTimeout(readTimer);
        const jobId = connections.get(socket);
        connections.delete(socket);
        // The caller ended after naming its job but before handing it over: if it recorded the job with us, it is settled as never launched.
        if (!handed && typeof jobId === 'string' && ![...connections.values()].includes(jobId)) start(jobId, '');
        settle();
      });
    });
    settle();
  });
}

/** Listens on `path`; null when a live supervisor already answers there. (Also `headspace serve`'s, #20.) */
export async function bindUnlessLive(path: string): Promise<Server | null> {
  try {
    return await listen(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
  }
  if (await answers(path)) return null;
  // Left by a supervisor that was killed: nobody listens; under the start lock nobody else removes or binds it meanwhile.
  rmSync(path, { force: true });
  return listen(path);
}

function listen(path: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    // Bound under umask 077 (bind happens within listen's call) and chmodded to 0600 after: no moment where another user may connect.
    // The umask is put back at once: the providers' files (a launcher a sandboxed user runs) need the usual one.
    const umask = process.umask(0o077);
    try {
      server.listen(path, () => {
        server.removeListener('error', reject);
        resolve(server);
      });
    } finally {
      process.umask(umask);
    }
  });
}

export function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const LOCK_POLL_MS = 10;
const LOCK_GIVE_UP_MS = 10_000;
const STALE_EMPTY_LOCK_MS = 2_000;

function lockAgeMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Runs `work` holding the start lock: created O_EXCL with this process's pid and start time; one whose holder is gone is taken over. */
export async function withStartLock<T>(paths: Pick<SupervisorPaths, 'startLock'>, work: () => Promise<T>): Promise<T> {
  const me = currentOwner();
  const deadline = Date.now() + LOCK_GIVE_UP_MS;
  for (;;) {
    try {
      const fd = openSync(paths.startLock, 'wx', 0o600);
      writeSync(fd, JSON.stringify(me));
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = lockHolder(paths.startLock);
    // Only a lock whose holder is dead is removed; an empty one is being written, unless it stayed empty (its writer died between create and write).
    if (holder ? !isOwnerAlive(holder) : lockAgeMs(paths.startLock) > STALE_EMPTY_LOCK_MS) rmSync(paths.startLock, { force: true });
    else if (Date.now() > deadline) throw new Error('the start lock of the shared supervisor stayed held');
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
  try {
    return await work();
  } finally {
    rmSync(paths.startLock, { force: true });
  }
}

function lockHolder(path: string): Owner | null {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Owner;
    return typeof parsed.pid === 'number' ? parsed : null;
  } catch {
    return null;
  }
}
