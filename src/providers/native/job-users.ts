/**
 * Who a native workspace's jobs run as. As root each workspace has a uid and
 * gid of its own, allocated by the engine (#10 item 4) and recorded in
 * meta.json; otherwise jobs run as ourselves. The legacy shared uid is only
 * that of workspaces made before per-workspace uids, and the one the host
 * probe tries bwrap as.
 */
import { ProviderError } from '../../core/errors.js';
import { LEGACY_JOB_UID, type JobUser } from '../../core/job-identity.js';
import { ANY_JOB_USER } from './reachable-paths.js';
import type { WorkspaceMeta } from './workspace-meta.js';

export interface JobUsers {
  readonly asRoot: boolean;
  /** This process's own uid and gid. */
  readonly own: JobUser;
  /** The uid of workspaces without a recorded one (NativeProviderOptions.jobUid). */
  readonly legacy: JobUser;
  /** Who must be able to reach what every workspace's jobs use: as root, any job uid (the 'other' bits). */
  readonly reach: JobUser;
  /** Who a workspace's jobs run as and its files belong to. */
  of(meta: WorkspaceMeta): JobUser;
  /** The identity a new workspace gets: the engine's, checked, as root; ourselves otherwise. */
  forCreate(allocated: JobUser): JobUser;
}

export function jobUsers(legacy: JobUser, uid = process.getuid?.() ?? -1, gid = process.getgid?.() ?? -1): JobUsers {
  const asRoot = uid === 0;
  const own = { uid, gid };
  return {
    asRoot,
    own,
    legacy,
    reach: asRoot ? ANY_JOB_USER : own,
    of: (meta) => (asRoot ? (meta.jobUser ?? legacy) : own),
    forCreate: (allocated) => (asRoot ? validJobUser(allocated) : own),
  };
}

/**
 * The engine's identity for a workspace, checked before anything is made as
 * it: never root's uid or gid, and never the legacy shared uid (which would
 * put the workspace back among the old ones, sharing their limits).
 */
function validJobUser(user: JobUser): JobUser {
  const ok = (n: number) => Number.isInteger(n) && n > 0 && n !== LEGACY_JOB_UID && n < 2 ** 32 - 1;
  if (!ok(user.uid) || !ok(user.gid))
    throw new ProviderError(`refusing job identity ${user.uid}:${user.gid} for a native workspace`, {
      hint: 'this is a headspace bug: the engine allocates job identities from 600001 up',
    });
  return { uid: user.uid, gid: user.gid };
}
