/**
 * Where a native workspace's meta and files live, and how the provider
 * makes, finds, measures and takes down its storage: a sparse ext4 image
 * loop-mounted under the mount base (the storage budget enforced, no host
 * path in the job's mountinfo; workspace-filesystem.ts), or a host
 * directory (the budget measured only). Every host-side file call goes
 * through safe-fs.ts from here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { access, chown, mkdir, readdir, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EngineError, ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { removeTree } from '../../core/files/fd-walk.js';
import { validateId } from '../../core/ids.js';
import type { JobUser } from '../../core/job-identity.js';
import { assertRoomForJob } from './host-capacity.js';
import type { JobUsers } from './job-users.js';
import { layeredStorage, type LayeredStorage } from './layered-storage.js';
import { imagePool, type ImagePool } from './image-pool.js';
import { settleReclaim, startReclaim } from './reclaim-storage.js';
import { DEFAULT_BUDGET } from '../../core/policy/policy.js';
import type { Layout } from './layout.js';
import { EMPTY_FACTS, LAYER_NAME, unreferencedLayers, type LayerStack } from './overlay-layers.js';
import { ensureUnderBase, pruneMountBase } from './mount-base.js';
import { withMountLock } from './mount-lock.js';
import type { HostEnv } from './probe.js';
import type { ReachablePaths } from './reachable-paths.js';
import { openSafeFs, type SafeFs } from './safe-fs.js';
import {
  isMountedOver,
  isMountPoint,
  makeWorkspaceFilesystem,
  mountWorkspaceFilesystem,
  unmountWorkspaceFilesystem,
  usedBytes,
  waitForLoopRelease,
} from './workspace-filesystem.js';
import { readMeta, type WorkspaceMeta } from './workspace-meta.js';

/** What one create has made so far, so that its undo takes down that and nothing else. */
export interface StorageAttempt {
  /** Only a mount this call made may be undone: a mount found in the way belongs to someone else. */
  mountedHere: boolean;
}

export interface WorkspaceStorage {
  /** The workspace's meta, with its files in place (its image mounted again if a reboot dropped the mount). */
  requireMeta(id: string, files?: boolean): Promise<WorkspaceMeta>;
  /** The directory holding the workspace's files on the host. */
  filesOf(id: string, meta: WorkspaceMeta): string;
  /** The workspace's files, opened for host-side access as the workspace's job user. */
  files(id: string): Promise<SafeFs>;
  /** What bwrap binds at /workspace: the image's mount point as is, a host directory perhaps through a bind the job uid can reach. */
  jobSource(id: string, meta: WorkspaceMeta): Promise<string>;
  /** A sparse image reserves nothing: refuses a job that could fill the host's disk. */
  assertRoomForJob(id: string, meta: WorkspaceMeta): Promise<void>;
  /**
   * Makes the workspace's storage at create, recording in `attempt` what the
   * undo may take down. `base` (a fork, #14) starts the layered filesystem on
   * that frozen chain instead of an empty one.
   */
  make(
    id: string,
    env: HostEnv,
    storageBytes: number,
    owner: JobUser,
    attempt: StorageAttempt,
    base?: Pick<LayerStack, 'lowers' | 'lowerFacts'>,
  ): Promise<Pick<WorkspaceMeta, 'storage' | 'storageBaselineBytes' | 'layers'>>;
  /** Undoes a failed create's storage; never deletes an image still mounted. */
  undo(id: string, attempt: StorageAttempt): Promise<void>;
  /** Bytes the workspace's files take (allocated blocks of an image; a walk of a host directory); undefined when unreadable. */
  measure(id: string, meta: WorkspaceMeta): Promise<number | undefined>;
  /**
   * Takes the storage down at remove (meta.json already gone): what remove()
   * reports for it. `reclaiming`: unreachable now, deleted in the background
   * (reclaim-storage.ts).
   */
  remove(id: string): Promise<'removed' | 'retained' | 'unverified' | 'reclaiming'>;
  /** Before a create reuses `id`: waits for its reclaim, or finishes an interrupted one. */
  settleReclaim(id: string): Promise<void>;
  /** The mount base goes with the last workspace (#10 item 12). */
  prune(): Promise<void>;
  /** Workspaces with a meta.json, sorted. */
  list(): Promise<string[]>;
  /** The layered filesystem's host side (#14). */
  layered: LayeredStorage;
  /**
   * After a create: deletes what does not belong in the image pool and starts
   * its background refill when a slot is empty (image-pool.ts); does not wait
   * for the refill. Resolves to the refill's pid, if one started.
   */
  refillPool(env: HostEnv): Promise<number | undefined>;
}

export function workspaceStorage(options: {
  layout: Layout;
  root: string;
  mountBase: string;
  users: JobUsers;
  reachable: () => Promise<ReachablePaths>;
  /** headspace-exec, which makes the idmapped binds of a fork's inherited layers (layer-idmaps.ts). */
  helperPath: string;
  /** Formatted images kept ready (image-pool.ts); 0: none, every create runs mkfs. */
  poolSize: number;
}): WorkspaceStorage {
  const { layout, root, mountBase, users, reachable, helperPath, poolSize } = options;
  const pools = new Map<string, ImagePool>();
  /** One pool per mkfs binary (its path is part of the image format); its label ties its images to this home. */
  const poolOf = (mkfsPath: string): ImagePool => {
    let pool = pools.get(mkfsPath);
    if (pool === undefined) {
      pool = imagePool({ dir: layout.poolDir, size: poolSize, mkfsPath, label: `hs-${layout.cgroupName('').replace(/-$/, '')}` });
      pools.set(mkfsPath, pool);
    }
    return pool;
  };
  /**
   * Where a workspace's image is mounted: under the mount base, outside
   * `root`, so the job uid reaches it without a second bind whatever
   * HEADSPACE_HOME's permissions, and a recursive delete of HEADSPACE_HOME
   * never walks into (and empties) a mounted workspace.
   */
  const imageMountPoint = (id: string) => join(mountBase, 'fs', id);
  const layered = layeredStorage(layout, mountBase, root, helperPath);
  const filesOf = (id: string, meta: WorkspaceMeta) => (meta.storage === 'loop-ext4' ? imageMountPoint(id) : layout.filesDir(id));
  const prune = async () => {
    if (users.asRoot) await pruneMountBase(mountBase, layout.workspacesDir).catch(() => undefined);
  };

  /**
   * Two stats when the image is mounted (every call that touches files pays
   * only this). Unmounted means a reboot or an interrupted removal: mount the
   * image again rather than hand out the empty directory underneath, which
   * would look like a workspace that lost its files and would not be bounded.
   */
  async function ensureFiles(id: string, meta: WorkspaceMeta): Promise<void> {
    if (meta.storage !== 'loop-ext4') return;
    const mountPoint = imageMountPoint(id);
    if (isMountedOver(mountPoint, dirname(mountPoint))) return;
    if (process.getuid?.() !== 0)
      throw new ProviderError(`native workspace ${id} keeps its files on a loop-mounted image, which only root can mount again`, {
        hint: 'run headspace as root',
      });
    // Asked again under the mount lock, with meta.json read again: a layer switch or a removal may be between its
    // unmount and what follows, and mounting the stack read before would stack it under (or over) the switch's.
    await withMountLock(
      layout.mountLockPath(id),
      `native workspace ${id}'s files`,
      async () => {
        if (isMountedOver(mountPoint, dirname(mountPoint))) return;
        const now = await readMeta(layout.metaPath(id));
        if (now === undefined) throw noWorkspace(id);
        await mountFiles(id, now);
      },
      () => {
        throw noWorkspace(id);
      },
    );
  }

  /** Mounts an unmounted workspace's files (a reboot, an interrupted removal), under its mount lock. */
  async function mountFiles(id: string, meta: WorkspaceMeta): Promise<void> {
    await ensureUnderBase(mountBase, 'fs', { name: id, mode: 0o711 }, root);
    if (meta.layers !== undefined) return layered.mountStack(id, meta.layers, users.of(meta));
    const image = layout.imagePath(id);
    if (!existsSync(image))
      throw new ProviderError(`the storage image of native workspace ${id} is missing (${image})`, {
        hint: 'the workspace files are lost; remove the workspace',
      });
    await mountWorkspaceFilesystem(image, imageMountPoint(id));
  }

  /** A retained store keeps only the layers other chains use: the removed workspace's own upper and private checkpoints go. */
  async function dropOwnLayers(id: string): Promise<void> {
    const names = (await readdir(`${layered.imageMount(id)}/layers`).catch(() => [] as string[])).filter((n) => LAYER_NAME.test(n));
    const candidates = names.map((layer) => ({ store: id, layer }));
    await layered.deleteLayers(unreferencedLayers(candidates, await layered.liveChains(id)));
  }

  async function requireMeta(id: string, files = true): Promise<WorkspaceMeta> {
    validateId('workspace', id);
    const meta = await readMeta(layout.metaPath(id));
    if (meta === undefined) throw noWorkspace(id);
    if (files) await ensureFiles(id, meta);
    return meta;
  }

  return {
    requireMeta,
    filesOf,
    async files(id) {
      const meta = await requireMeta(id);
      return openSafeFs(filesOf(id, meta), users.of(meta));
    },
    async jobSource(id, meta) {
      // The image's mount point is under the mount base, reachable as is; a host directory may need a bind.
      return meta.storage === 'loop-ext4' ? imageMountPoint(id) : (await reachable()).filesSource(id, layout.filesDir(id));
    },
    async assertRoomForJob(id, meta) {
      if (meta.storage === 'loop-ext4') await assertRoomForJob(id, layout.imagePath(id));
    },

    async make(id, env, storageBytes, owner, attempt, base) {
      if (env.storage.available) {
        const mountPoint = imageMountPoint(id);
        const imageMount = layered.imageMount(id);
        for (const taken of [mountPoint, imageMount])
          if (isMountPoint(taken))
            throw new ProviderError(`something is already mounted at ${taken}`, {
              hint: 'leftovers of an earlier workspace are in the way; see the repairs doctor plans',
              action: nextAction('doctor', { provider: 'native', repair: true }),
            });
        attempt.mountedHere = true;
        const pool = poolOf(env.storage.mkfsPath!);
        const claim = (image: string) => pool.claim(storageBytes, image);
        await ensureUnderBase(mountBase, 'fs', { name: id, mode: 0o711 }, root);
        if (!overlaySupported()) {
          if (base !== undefined)
            throw new ProviderError('this kernel has no overlayfs: the native provider cannot fork', { hint: 'load the overlay module (modprobe overlay)' });
          await makeWorkspaceFilesystem({ image: layout.imagePath(id), mountPoint, bytes: storageBytes, owner, mkfsPath: env.storage.mkfsPath!, claim });
          return { storage: 'loop-ext4', storageBaselineBytes: await usedBytes(mountPoint) };
        }
        // Layered (#14): the image at img/<id>, the overlay of its upper on the (fork's) frozen chain at fs/<id>.
        await ensureUnderBase(mountBase, 'img', { name: id, mode: 0o700 }, root);
        await makeWorkspaceFilesystem({
          image: layout.imagePath(id),
          mountPoint: imageMount,
          bytes: storageBytes,
          owner,
          mkfsPath: env.storage.mkfsPath!,
          claim,
        });
        const layers: LayerStack = { upper: 'L0000000000000000', lowers: base?.lowers ?? [], lowerFacts: base?.lowerFacts ?? EMPTY_FACTS };
        await layered.prepare(id, owner, layers);
        return { storage: 'loop-ext4', storageBaselineBytes: await usedBytes(mountPoint), layers };
      }
      const filesDir = layout.filesDir(id);
      await mkdir(filesDir, { mode: 0o700 });
      if (env.switchUser) await chown(filesDir, owner.uid, owner.gid);
      await (await reachable()).filesSource(id, filesDir);
      return {};
    },

    async undo(id, attempt) {
      const mountPoint = imageMountPoint(id);
      const unmounted = attempt.mountedHere ? await unmountWorkspaceFilesystem(mountPoint).catch(() => 'failed' as const) : 'not-ours';
      if (unmounted === 'failed') return;
      if (attempt.mountedHere && (await unmountWorkspaceFilesystem(layered.imageMount(id)).catch(() => 'failed' as const)) === 'failed') return;
      if (attempt.mountedHere) await rmdir(layered.imageMount(id)).catch(() => undefined);
      if (unmounted !== 'not-ours') await rmdir(mountPoint).catch(() => undefined);
      await removeTree(layout.workspaceDir(id)).catch(() => undefined);
      await prune();
    },

    async measure(id, meta) {
      if (meta.storage === 'loop-ext4') {
        // statfs of the workspace's own filesystem: no walk of the tree, and it counts what the budget counts (allocated blocks).
        await ensureFiles(id, meta);
        return Math.max(0, (await usedBytes(imageMountPoint(id))) - (meta.storageBaselineBytes ?? 0));
      }
      const safe = await openSafeFs(layout.filesDir(id), users.of(meta)).catch(() => undefined);
      return safe === undefined ? undefined : await safe.measure();
    },

    async remove(id) {
      // The overlay (or the image's mount) at fs/<id> is what jobs bind: it goes now, whatever else waits. Under the
      // mount lock, so a call that read meta.json before it was removed cannot mount the files again behind it.
      const unmount = () => unmountWorkspaceFilesystem(imageMountPoint(id)).catch(() => 'failed' as const);
      const unmounted = await withMountLock(layout.mountLockPath(id), `native workspace ${id}'s files`, unmount, unmount);
      // An image still mounted stays (retained): deleting it would only hide it while the loop device holds it.
      let proceed = unmounted !== 'failed';
      // Reclaimed in the background (reclaim-storage.ts) once nothing a job can reach is left: a clean unmount and an image
      // of ours. A lazy unmount (the host still holds a file) is taken down here as before, and says what it could verify.
      const background = proceed && unmounted !== 'lazily-unmounted' && existsSync(layout.imagePath(id));
      const reclaimLater = async (imageMount?: string) => {
        await rmdir(imageMountPoint(id)).catch(() => undefined);
        await startReclaim({
          id,
          dir: layout.workspaceDir(id),
          ...(imageMount === undefined ? {} : { imageMount }),
          mountBase,
          workspacesDir: layout.workspacesDir,
        });
        return 'reclaiming' as const;
      };
      // Kept for forks' layers: reported retained, not removed (a new user found the image still on disk after a
      // destroy that said it removed the storage).
      let keptForForks = false;
      if (proceed && isMountPoint(layered.imageMount(id))) {
        // Its idmapped binds of inherited layers pin their stores' images (layer-idmaps.ts): they go first.
        await layered.releaseIdmaps(id);
        // Layered (#14): a fork's chain may still use this image's frozen layers; then it stays, as a retained store.
        if (await layered.retainIfShared(id)) {
          keptForForks = true;
          await dropOwnLayers(id);
        } else if (background) {
          const state = await reclaimLater(layered.imageMount(id));
          // Retained stores this workspace's chain was the last to use (its meta is gone, and its folder is journalled for
          // the reclaim, so it no longer counts).
          await layered.collectStores().catch(() => undefined);
          // The reclaim's shell prunes the mount base once it has deleted the folder. When it did so before the collection
          // above took its store's directory out of img/, img/ (and so the base) stayed, empty and without their home
          // marker: once per CI run, named a leftover by doctor. Pruning again is safe either way (only empty levels, and
          // only once no workspace folder is left, the reclaiming one included).
          await prune();
          return state;
        } else {
          proceed = (await unmountWorkspaceFilesystem(layered.imageMount(id)).catch(() => 'failed' as const)) !== 'failed';
          if (proceed) await rmdir(layered.imageMount(id)).catch(() => undefined);
        }
      }
      if (proceed && background && !existsSync(join(root, 'stores', `${id}.img`))) return reclaimLater();
      if (proceed) {
        await rmdir(imageMountPoint(id)).catch(() => undefined);
        // fd-relative and iterative: Node's recursive rm failed with ENAMETOOLONG on a job's 1,500-deep tree (#10 item 8).
        await removeTree(layout.workspaceDir(id));
        await layered.collectStores().catch(() => undefined);
      }
      // A lazily unmounted image (something still held it) keeps its loop device until its last user goes.
      const held = unmounted !== 'not-mounted' && !(await waitForLoopRelease(layout.workspaceDir(id), unmounted === 'unmounted' ? 2000 : 250));
      return keptForForks || (await exists(layout.workspaceDir(id))) ? 'retained' : held ? 'unverified' : 'removed';
    },

    prune,
    layered,
    settleReclaim: (id) => settleReclaim({ dir: layout.workspaceDir(id), fsMount: imageMountPoint(id), imageMount: layered.imageMount(id) }),

    async refillPool(env) {
      // Only images the default budget asks for are kept: other sizes are rare, and make their own.
      return env.storage.available && poolSize > 0 ? poolOf(env.storage.mkfsPath!).refill(DEFAULT_BUDGET.storageBytes) : undefined;
    },

    async list() {
      const names = await readdir(layout.workspacesDir).catch(() => [] as string[]);
      const ids: string[] = [];
      for (const name of names.sort()) if (await exists(layout.metaPath(name))) ids.push(name);
      return ids;
    },
  };
}

function noWorkspace(id: string): EngineError {
  return new EngineError('WORKSPACE_NOT_FOUND', `no native workspace ${id}`, { hint: 'list the workspaces', action: nextAction('ls') });
}

/** Is overlayfs available (the layered filesystem, #14)? Read once: /proc/filesystems lists it once the module is loaded. */
let overlay: boolean | undefined;
function overlaySupported(): boolean {
  try {
    overlay ??= /\toverlay\n/.test(readFileSync('/proc/filesystems', 'utf8'));
  } catch {
    overlay = false;
  }
  return overlay;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
