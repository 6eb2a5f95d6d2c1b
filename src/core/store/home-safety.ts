/**
 * A home only this user (and root) controls. Everything headspace keeps is
 * under HEADSPACE_HOME: the state store, job logs, the egress CA's key, the
 * serve and supervisor sockets. A home another local user can write in, or
 * one under a directory such a user can rename entries of, let that user
 * swap any of those for their own between a check and its use: a served
 * call's socket directory was swapped this way and the call, with the
 * caller's whole environment, answered by the other user (red team,
 * session 11). So, as ssh's StrictModes does for ~/.ssh, the home and every
 * directory above it must be owned by root or this user, the home writable
 * by its owner alone, and each directory above it writable by no one else
 * unless sticky (/tmp: others may add entries there but not rename ours).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EngineError } from '../errors.js';

/** One directory (or link) on the way to the home, as lstat saw it. */
export interface PathOwnership {
  path: string;
  uid: number;
  mode: number;
  /** A symbolic link: its own mode means nothing (always 0777); its owner and its directory's do. */
  link?: boolean;
}

const STICKY = 0o1000;
const GROUP_OR_OTHER_WRITE = 0o022;

/**
 * Why the home is not this user's alone, or null. `chain` is the home first,
 * then each directory above it up to `/`. Pure, for the test and for doctor.
 */
export function unsafeHomeReason(chain: readonly PathOwnership[], uid: number): string | null {
  for (const [i, dir] of chain.entries()) {
    if (dir.uid !== 0 && dir.uid !== uid) return `${dir.path} is owned by uid ${dir.uid}, neither root nor this user (uid ${uid})`;
    const writable = dir.link !== true && (dir.mode & GROUP_OR_OTHER_WRITE) !== 0;
    if (i === 0 && writable) return `${dir.path} is writable by its group or by others (mode ${(dir.mode & 0o7777).toString(8).padStart(4, '0')})`;
    if (i > 0 && writable && (dir.mode & STICKY) === 0)
      return `${dir.path} is writable by its group or by others without the sticky bit (mode ${(dir.mode & 0o7777).toString(8).padStart(4, '0')})`;
  }
  return null;
}

/** `path` and each directory above it, as lstat sees them (a link is itself, not where it leads). */
export function ownershipChain(path: string): PathOwnership[] {
  const chain: PathOwnership[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    const st = lstatSync(at);
    chain.push({ path: at, uid: st.uid, mode: st.mode, ...(st.isSymbolicLink() ? { link: true } : {}) });
    if (at === dirname(at)) return chain;
  }
}

/** Refuses (exit 2) a home another user could change, naming the directory and the remedy. */
export function refuseUnsafeHome(home: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return; // not POSIX: no owners to compare
  // The path as given (whoever can change a link on it can change where it leads) and where it leads.
  const reason = unsafeHomeReason(ownershipChain(home), uid) ?? unsafeHomeReason(ownershipChain(realpathSync(home)), uid);
  if (reason === null) return;
  throw new EngineError('STORE_UNAVAILABLE', `the headspace home ${home} is not this user's alone: ${reason}; another user could change its state`, {
    hint: 'use a home only you (and root) can write to and whose parents only you or root own (chmod go-w, chown), or set HEADSPACE_HOME to one',
  });
}
