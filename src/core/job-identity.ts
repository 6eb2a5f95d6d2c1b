/**
 * The host identities workspaces' jobs run as (#10 item 4).
 *
 * The kernel charges per-user limits (inotify instances, POSIX message-queue
 * bytes, pipe buffer pages, RLIMIT_NPROC) to the kernel uid, across user
 * namespaces. When every workspace ran as one uid, a job in one workspace
 * could exhaust them for all the others. So each live workspace gets a slot
 * of its own, allocated by the store (never shared while the workspace
 * exists, reclaimed once it is destroyed), and its jobs run as
 * uid = gid = JOB_UID_BASE + slot.
 *
 * Range: slots 1..JOB_SLOT_COUNT, i.e. host uids and gids 600001..665535
 * (no account on a normal host uses them; keep them out of /etc/subuid
 * ranges given to users). 600000 itself stays what it was: the one uid of
 * workspaces created before slots existed, which keep it until destroyed.
 */
export interface JobUser {
  uid: number;
  gid: number;
}

/** The shared uid of every workspace created before per-workspace identities. */
export const LEGACY_JOB_UID = 600_000;
export const JOB_UID_BASE = LEGACY_JOB_UID;
/** Live workspaces at once, at most: a create past it is refused (JOB_IDS_EXHAUSTED). */
export const JOB_SLOT_COUNT = 65_535;

export function jobUserOfSlot(slot: number): JobUser {
  if (!Number.isInteger(slot) || slot < 1 || slot > JOB_SLOT_COUNT) throw new RangeError(`job slot ${slot} is outside 1..${JOB_SLOT_COUNT}`);
  return { uid: JOB_UID_BASE + slot, gid: JOB_UID_BASE + slot };
}
