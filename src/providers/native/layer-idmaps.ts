/**
 * Pure planning of a workspace's idmapped lower layers (#14: a fork could not
 * change the files it inherited).
 *
 * Each live workspace's jobs run as a uid of their own (core/job-identity.ts),
 * so the files in a frozen layer belong to the uid of the workspace that
 * wrote it. A fork runs as another uid; seen through its overlay, those
 * files were someone else's (65534 inside its sandbox) and the first write
 * to one was refused. So every lower layer written by another identity is
 * presented to the fork through an idmapped bind mount (made by
 * `headspace-exec --idmap-bind`) on which the layer owner's uid and gid show
 * as the fork's, root stays root; the overlay is mounted on those binds.
 * A chain may hold layers of several ancestors: each layer's owner is
 * recorded in its LayerRef. A layer without a recorded owner (made before
 * this) or owned by the workspace itself is used as it is.
 *
 * Every path is relative to the image area (`<mount base>/img`, the mount's
 * working directory): the overlay's options name the binds as given, and a
 * job's mountinfo shows no host path. The binds live on the workspace's own
 * image, at `<id>/idmap/<store>.<layer>`, outside every sandbox.
 */
import type { LayerRef } from './overlay-layers.js';

export interface Identity {
  uid: number;
  gid: number;
}

/** One idmapped bind: the helper's argv (after its path) makes `target` show `source` with the owner's ids as the job's. */
export interface IdmapBind {
  /** `<store>.<layer>`: its directory under `<id>/idmap/`. */
  name: string;
  source: string;
  target: string;
  argv: string[];
}

export const IDMAP_DIR = 'idmap';
/**
 * A bind's name under idmap/: `<store>.<layer>`. The layer name alone is not
 * unique across stores (every workspace's first upper is L000…), and a fork
 * of a fork inherits layers of two stores.
 */
export const IDMAP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\.L[0-9a-f]{16}$/;

export function needsIdmap(ref: LayerRef, job: Identity): boolean {
  const owner = ref.owner;
  if (owner === undefined || owner.uid <= 0 || owner.gid <= 0 || job.uid <= 0 || job.gid <= 0) return false;
  return owner.uid !== job.uid || owner.gid !== job.gid;
}

/** The lower paths for the overlay of workspace `id` run as `job`, top first, and the binds they need. */
export function planLayerIdmaps(id: string, job: Identity, lowers: readonly LayerRef[]): { lowerPaths: string[]; binds: IdmapBind[] } {
  const binds: IdmapBind[] = [];
  const lowerPaths = lowers.map((ref) => {
    const source = `${ref.store}/layers/${ref.layer}`;
    if (!needsIdmap(ref, job)) return source;
    const name = `${ref.store}.${ref.layer}`;
    const target = `${id}/${IDMAP_DIR}/${name}`;
    if (!binds.some((bind) => bind.target === target)) {
      const owner = ref.owner!;
      binds.push({ name, source, target, argv: ['--idmap-bind', source, target, `${owner.uid}`, `${job.uid}`, `${owner.gid}`, `${job.gid}`] });
    }
    return target;
  });
  return { lowerPaths, binds };
}
