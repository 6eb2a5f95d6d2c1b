/**
 * A home only this user (and root) controls. Everything headspace keeps is
 * under HEADSPACE_HOME: the state store, job logs, the egress CA's key, the
 * serve and supervisor sockets. A home another local user can write in, or
 * one under a directory such a user can rename entries of, or one reached
 * through a link such a user owns, let that user swap any of those for their
 * own between a check and its use: a served call's socket directory was
 * swapped this way, and so was the home behind a link inside another link's
 * target, and calls with the caller's environment were answered by the other
 * user (red team, session 11). So, as ssh's StrictModes does for ~/.ssh,
 * every directory and link met on the way to the home, each link followed
 * where it leads, must be owned by root or this user; the home must be
 * writable by its owner alone; and a directory on the way writable by no one
 * else unless sticky (/tmp: others may add entries there but not rename
 * ours) or group-writable for a group only this user is in (a user private
 * group, as Debian's StrictModes allows).
 */
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { EngineError } from '../errors.js';

/** One directory or link met on the way to the home, as lstat saw it. */
export interface PathOwnership {
  path: string;
  uid: number;
  gid: number;
  mode: number;
  /** A symbolic link: its own mode means nothing (always 0777); its owner and its directory's do. */
  link?: boolean;
}

const STICKY = 0o1000;
const GROUP_WRITE = 0o020;
const OTHER_WRITE = 0o002;
/** As the kernel's bound on links followed in one lookup. */
const MAX_LINKS = 40;

const modeText = (mode: number) => (mode & 0o7777).toString(8).padStart(4, '0');

/**
 * Why the home is not this user's alone, or null. `met` is every directory
 * and link the lookup of the home passed through, the home itself last;
 * `ownGroups` the groups only this user is in, or how to read them: it is
 * asked only for a group-writable directory that no other rule decides
 * (a long-lived engine judges its home on every call, and reading the
 * account files each time was a tenth of a fake create+run+destroy cycle's
 * CPU, #20). Pure, for the tests.
 */
export function unsafeHomeReason(
  met: readonly PathOwnership[],
  uid: number,
  ownGroups: ReadonlySet<number> | (() => ReadonlySet<number>) = new Set(),
): string | null {
  let groups = typeof ownGroups === 'function' ? null : ownGroups;
  const isOwnGroup = (gid: number) => (groups ??= (ownGroups as () => ReadonlySet<number>)()).has(gid);
  for (const [i, entry] of met.entries()) {
    if (entry.uid !== 0 && entry.uid !== uid) return `${entry.path} is owned by uid ${entry.uid}, neither root nor this user (uid ${uid})`;
    if (entry.link === true) continue;
    const home = i === met.length - 1;
    // A sticky directory on the way (/tmp): others may add entries there, never rename ours.
    if (!home && (entry.mode & STICKY) !== 0) continue;
    const others = (entry.mode & OTHER_WRITE) !== 0;
    if (others || ((entry.mode & GROUP_WRITE) !== 0 && !isOwnGroup(entry.gid)))
      return home
        ? `${entry.path} is writable by its group or by others (mode ${modeText(entry.mode)})`
        : `${entry.path} is writable by its group or by others without the sticky bit (mode ${modeText(entry.mode)})`;
  }
  return null;
}

/**
 * Every directory and link the lookup of `path` passes through, in order,
 * each link's target looked up in turn (so a link met inside another link's
 * target is seen too), the entry `path` names last. Stops at the first
 * component that does not exist (`missing`: the rest would be created).
 */
export function lookupChain(path: string): { met: PathOwnership[]; missing: boolean } {
  const met: PathOwnership[] = [];
  const note = (at: string) => {
    const st = lstatSync(at);
    met.push({ path: at, uid: st.uid, gid: st.gid, mode: st.mode, ...(st.isSymbolicLink() ? { link: true } : {}) });
    return st;
  };
  note(sep);
  let at: string = sep;
  let pending = resolve(path).split(sep).filter(Boolean);
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === '.') continue;
    if (name === '..') {
      at = dirname(at);
      continue;
    }
    const next = join(at, name);
    let st;
    try {
      st = note(next);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { met, missing: true };
      throw error;
    }
    if (!st.isSymbolicLink()) {
      at = next;
      continue;
    }
    if (++links > MAX_LINKS) throw Object.assign(new Error(`too many links on the way to ${path}`), { code: 'ELOOP' });
    const target = readlinkSync(next);
    if (isAbsolute(target)) at = sep;
    pending = [...target.split(sep).filter(Boolean), ...pending];
  }
  return { met, missing: false };
}

/** Groups only `user` is in: its primary group when no one else has it, and supplementary groups listing only it. */
export function groupsOnlyOf(uid: number, passwd: string, group: string): Set<number> {
  const users = passwd
    .split('\n')
    .map((line) => line.split(':'))
    .filter((f) => f.length >= 4);
  const me = users.find((f) => Number(f[2]) === uid);
  if (me === undefined) return new Set();
  const name = me[0]!;
  const own = new Set<number>();
  for (const f of group.split('\n').map((line) => line.split(':'))) {
    if (f.length < 4) continue;
    const gid = Number(f[2]);
    const members = f[3]!.split(',').filter(Boolean);
    const primaryOfOthers = users.some((u) => Number(u[3]) === gid && Number(u[2]) !== uid);
    const onlyMe = members.every((m) => m === name) && (members.length > 0 || Number(me[3]) === gid);
    if (onlyMe && !primaryOfOthers) own.add(gid);
  }
  return own;
}

function readOwnGroups(uid: number): Set<number> {
  try {
    return groupsOnlyOf(uid, readFileSync('/etc/passwd', 'utf8'), readFileSync('/etc/group', 'utf8'));
  } catch {
    return new Set(); // no account files to read: a group-writable directory is refused
  }
}

/**
 * Refuses (exit 2) a home another user could change, naming the directory
 * and the remedy. A home not made yet is judged by the way to it, so a
 * refusal leaves nothing behind.
 */
export function refuseUnsafeHome(home: string): void {
  const uid = process.getuid?.();
  if (uid === undefined) return; // not POSIX: no owners to compare
  let chain;
  try {
    chain = lookupChain(home);
  } catch (cause) {
    throw new EngineError('STORE_UNAVAILABLE', `the headspace home ${home} cannot be looked up: ${(cause as Error).message}`, {
      hint: 'set HEADSPACE_HOME to a directory of yours',
      cause,
    });
  }
  // Not made yet: every entry met is a directory on the way (the home's own rule applies once it exists).
  const met = chain.missing ? [...chain.met, { path: '(the home, to be made)', uid, gid: -1, mode: 0o40700 }] : chain.met;
  const reason = unsafeHomeReason(met, uid, () => readOwnGroups(uid));
  if (reason === null) return;
  throw new EngineError('STORE_UNAVAILABLE', `the headspace home ${home} is not this user's alone: ${reason}; another user could change its state`, {
    hint: 'use a home that only you (and root) can change all the way down: no directory on the way writable by others (chmod go-w) or owned by another user, and no link of theirs; or set HEADSPACE_HOME to one',
  });
}
