/**
 * Where the native provider keeps its state under `options.root`. Everything a
 * second process needs (workspace list, meta, the running job, stop requests)
 * is a file here, so provider instances hold no state across processes.
 *
 *   root/workspaces/<id>/files          bound read-write at /workspace (host-directory storage)
 *   root/workspaces/<id>/storage.img    sparse ext4 image, the workspace's own filesystem
 *                                       sized to its storage budget (workspace-filesystem.ts)
 *   root/workspaces/<id>/meta.json      WorkspaceMeta
 *   root/workspaces/<id>/job.json       the running job (owner pid, job id); absent when idle
 *   root/workspaces/<id>/job-<k>.json   the job in slot k when several run at once (job-marker.ts)
 *   root/workspaces/<id>/stop-<jobId>   written by stop() before it kills, read by run()
 *   root/runtime/<id>/                  the workspace's copy of the exec shim when not root
 *                                       (as root: under the mount base, see mount-base.ts)
 *   root/cache/host-profile.json        memoised binary digests for the environment digest
 *   root/pool/ready-<bytes>-<format>-<k>.img  formatted images create takes (image-pool.ts)
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';

/**
 * The journal of a removed workspace's background reclaim, in its folder (reclaim-storage.ts): a folder holding
 * one belongs to no live workspace, and nothing in it (its checkpoint manifests) keeps a layer in use.
 */
export const RECLAIM_JOURNAL = 'reclaim.json';

export interface Layout {
  root: string;
  workspacesDir: string;
  runtimeDir: string;
  cacheDir: string;
  /** Formatted workspace images kept ready for create (image-pool.ts); on the same filesystem as workspacesDir, so a claim is a rename. */
  poolDir: string;
  workspaceDir(id: string): string;
  filesDir(id: string): string;
  imagePath(id: string): string;
  metaPath(id: string): string;
  /** flock'd by whoever mounts or unmounts the workspace's files (mount-lock.ts): a remount, a layer switch, a removal. */
  mountLockPath(id: string): string;
  jobPath(id: string): string;
  stopSentinelPath(id: string, jobId: string): string;
  /** Cgroup directory name for the workspace: unique per root, so two roots never share a cgroup. */
  cgroupName(id: string): string;
  /** The child cgroup of job slot `slot` under the workspace's, used when jobs run at once (#12 item 8). */
  jobCgroupName(id: string, slot: number): string;
}

export function layoutOf(root: string): Layout {
  const workspacesDir = join(root, 'workspaces');
  const rootTag = createHash('sha256').update(root).digest('hex').slice(0, 10);
  return {
    root,
    workspacesDir,
    runtimeDir: join(root, 'runtime'),
    cacheDir: join(root, 'cache'),
    poolDir: join(root, 'pool'),
    workspaceDir: (id) => join(workspacesDir, id),
    filesDir: (id) => join(workspacesDir, id, 'files'),
    imagePath: (id) => join(workspacesDir, id, 'storage.img'),
    metaPath: (id) => join(workspacesDir, id, 'meta.json'),
    mountLockPath: (id) => join(workspacesDir, id, 'mount.lock'),
    jobPath: (id) => join(workspacesDir, id, 'job.json'),
    stopSentinelPath: (id, jobId) => join(workspacesDir, id, `stop-${jobId}`),
    cgroupName: (id) => `${rootTag}-${id}`,
    jobCgroupName: (id, slot) => `${rootTag}-${id}/job-${slot}`,
  };
}
