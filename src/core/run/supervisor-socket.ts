/**
 * Where a home's shared supervisor listens (#15), and the few lines its
 * callers and it exchange. The socket lives in `<home>/supervisor/`, a
 * directory of mode 0700; the socket itself is 0600.
 *
 * Who may connect: Node has no API for SO_PEERCRED, so the peer is not
 * asked who it is; access is the file system's. Connecting to a unix socket
 * needs search permission on its directory and write permission on the
 * socket, so only this user (and root) can reach it. Both ends check that
 * the directory is this user's and 0700 before using it, and a caller also
 * checks that the socket is this user's before handing it a job's env
 * values: a socket someone else planted is refused, never talked to.
 *
 * The exchange, one JSON document per line:
 *   caller → `{"v":1,"job":ID}`       supervisor → `{"v":1,"owner":{pid,started}}`
 *   caller records the job with that owner, then sends the handover
 *   (handover.ts) or `{"v":1,"none":true}` when the record was refused;
 *   supervisor → `{"v":1,"accepted":true}` once the job is in its hands.
 * The supervisor bounds each read (shared-supervisor.ts LINE_TIMEOUTS: 5 s
 * for the job line, 60 s for the handover); a caller silent past it is cut
 * off, as one that died would be.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import type { Owner } from '../store/owner.js';
import { MAX_HANDOVER_BYTES } from './handover.js';

export interface SupervisorPaths {
  dir: string;
  socket: string;
  /** Held (O_EXCL) by a supervisor while it binds, so two starting at once end with one. */
  startLock: string;
}

/** sun_path holds 108 bytes with its terminating NUL; a longer path cannot be bound. */
export const MAX_SOCKET_PATH_BYTES = 107;

export function supervisorPaths(home: string): SupervisorPaths {
  const dir = join(home, 'supervisor');
  return { dir, socket: join(dir, 'sock'), startLock: join(dir, 'start.lock') };
}

export function socketPathFits(paths: SupervisorPaths): boolean {
  return Buffer.byteLength(paths.socket) <= MAX_SOCKET_PATH_BYTES;
}

/** Creates the directory 0700 if missing; true only when it is a directory of this user's that nobody else can enter. */
export function privateDirReady(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid!() && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/**
 * The private directory opened by descriptor, never through a link, and
 * checked by fstat (this user's, mode 0700), with the path of its socket
 * through that descriptor: a caller connects to the socket of the directory
 * it checked. Checked by path and connected by path, a directory swapped in
 * between took a detached run's env values (red team, session 11). Null when
 * it cannot be opened or is not private; the caller closes `fd`.
 */
export function openPrivateDir(dir: string): { fd: number; socket: string } | null {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory() && st.uid === process.getuid!() && (st.mode & 0o077) === 0) return { fd, socket: `/proc/self/fd/${fd}/sock` };
  } catch {
    // unreadable: not ours to use
  }
  closeSync(fd);
  return null;
}

/** True when the socket file is this user's socket: the only one a caller hands env values to. */
export function socketIsOurs(path: string): boolean {
  try {
    const st = lstatSync(path);
    return st.isSocket() && st.uid === process.getuid!();
  } catch {
    return false;
  }
}

export type SupervisorMessage = { v: 1; job: string } | { v: 1; owner: Owner } | { v: 1; none: true } | { v: 1; accepted: true };

export function writeLine(socket: Socket, message: SupervisorMessage | string): void {
  socket.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
}

/**
 * Calls `onLine` with each complete line the socket sends; a peer that sends
 * more than a handover's bound without a newline is cut off.
 */
export function readLines(socket: Socket, onLine: (line: string) => void): void {
  let pending = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    pending += chunk;
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      onLine(line);
    }
    if (pending.length > MAX_HANDOVER_BYTES) socket.destroy();
  });
}

export function parseLine(line: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null && (parsed as { v?: unknown }).v === 1 ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
