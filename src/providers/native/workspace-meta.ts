/**
 * meta.json: what create() decided, read by every later call from any process.
 * Read synchronously: a small local file read once per call, where the async
 * API's thread-pool hops cost more than the read itself on a loaded host.
 */
import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import type { Policy } from '../../core/policy/policy.js';
import type { LayerStack } from './overlay-layers.js';

export interface WorkspaceMeta {
  schema: 1;
  workspaceId: string;
  profile: string;
  policy: Policy;
  environmentDigest: string;
  createdAt: string;
  /**
   * Where the files live. `loop-ext4`: storage.img, loop-mounted at files/
   * (budget enforced, remounted after a reboot). Absent: a plain host
   * directory (budget measured only); workspaces made before images existed
   * read as this.
   */
  storage?: 'loop-ext4';
  /**
   * The layered filesystem (#14, overlay-layers.ts): the image is mounted at
   * `<mount base>/img/<id>` and /workspace is an overlay of `upper` on
   * `lowers`. Absent: a workspace made before snapshots, its image mounted
   * straight at `<mount base>/fs/<id>` (it has no snapshots).
   */
  layers?: LayerStack;
  /** Bytes the empty filesystem already uses (root directory); subtracted from statfs usage. */
  storageBaselineBytes?: number;
  /**
   * The host uid/gid this workspace's jobs run as (when we are root), from
   * the engine's store: one per live workspace (#10 item 4). Absent:
   * created before per-workspace identities; it keeps the legacy shared uid
   * (the provider's `jobUid` option, default 600000) until destroyed.
   */
  jobUser?: { uid: number; gid: number };
  /** Each host path → its real path at create; run refuses when it resolves elsewhere (host-paths.ts). */
  resolvedHostPaths?: Record<string, string>;
}

export async function readMeta(path: string): Promise<WorkspaceMeta | undefined> {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as WorkspaceMeta;
    return parsed.schema === 1 ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export async function writeMeta(path: string, meta: WorkspaceMeta): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(meta, null, 2), { mode: 0o600 });
  await rename(tmp, path);
}
