/**
 * The host side of the layered workspace filesystem (#14; overlay-layers.ts
 * plans it): each image is mounted at `<mount base>/img/<store>` (0700 area,
 * never bound into a job), the workspace's overlay at `<mount base>/fs/<id>`
 * (what bwrap binds at /workspace, as before). An image whose workspace was
 * removed while forks still use its frozen layers is kept as a retained store
 * (`<root>/stores/<store>.img`, still mounted) until the last chain that
 * references it is gone.
 *
 * Every mount runs with the image area as its working directory and names
 * its layers relatively, so no host path appears in the job's mountinfo.
 */
import { withImageLock } from './mount-lock.js';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { chmod, chown, mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ProviderError } from '../../core/errors.js';
import { removeUnreachableTree } from '../../core/files/remove-unreachable-tree.js';
import { ID_PATTERN } from '../../core/ids.js';
import { nextAction } from '../../core/next-action.js';
import { RECLAIM_JOURNAL, type Layout } from './layout.js';
import { ensureUnderBase } from './mount-base.js';
import { IDMAP_DIR, IDMAP_NAME, planLayerIdmaps, type Identity } from './layer-idmaps.js';
import { LAYER_NAME, overlayOptions, storesOf, type LayerRef, type LayerStack } from './overlay-layers.js';
import { isMountedOver, isMountPoint, mountWorkspaceFilesystem, unmountWorkspaceFilesystem } from './workspace-filesystem.js';
import { readMeta } from './workspace-meta.js';

const run = promisify(execFile);
const MOUNT = '/usr/bin/mount';

/** A checkpoint's manifest, `<workspace dir>/checkpoints/<id>.json`: written last, so its presence is the checkpoint's commit point. */
export interface CheckpointManifest {
  schema: 1;
  checkpointId: string;
  chain: LayerRef[];
  facts: { fileCount: number; bytes: number; digest: string };
}

export interface LayeredStorage {
  imageMount(store: string): string;
  /** The store's layer directory on the host (its image mounted). */
  layerDir(ref: LayerRef): string;
  /** The empty directory on the store's image (the view of an empty chain). */
  emptyDir(store: string): string;
  /** Mounts the store's image at img/<store> unless it is; throws when its image is gone. */
  ensureStore(store: string): Promise<void>;
  /** The size of the store's image (its workspace's storage budget when made), or undefined when it is gone. */
  imageBytes(store: string): number | undefined;
  /** Lays out a freshly made image (mounted at img/<id>) and mounts the workspace's overlay. */
  prepare(id: string, owner: { uid: number; gid: number }, stack: LayerStack): Promise<void>;
  /** Mounts the overlay of `id` (its jobs run as `job`) for `stack` at fs/<id>: its stores and idmapped lowers first. */
  mountStack(id: string, stack: LayerStack, job: Identity): Promise<void>;
  /**
   * Points the workspace's overlay at `next` in ONE spawned shell (each
   * spawn costs 5–30 ms on a loaded 2-core host, more than the mount work):
   * unmount the overlay, rename the already written meta.json into place
   * (the commit point: a crash before it leaves the old stack mounted and
   * recorded, after it the new one recorded and mounted on next use), mount
   * the new overlay; then release `view` if given. A busy overlay (a
   * host-side call holding a file) fails before anything changed.
   */
  switchStack(id: string, next: LayerStack, metaTmp: string, job: Identity, view?: string): Promise<void>;
  /** Unmounts every idmapped bind on the image of `id` (at remove: they pin other stores' images). */
  releaseIdmaps(id: string): Promise<void>;
  /** Mounts a read-only view of `chain` at a fresh directory on the image of `id`; returns it (the empty dir for an empty chain). */
  mountView(id: string, chain: readonly LayerRef[]): Promise<{ root: string; release(): Promise<void>; mounted: boolean }>;
  /** A new layer directory on `id`'s image, owned by `owner`, mode 0700: a new upper. */
  makeLayer(id: string, owner: { uid: number; gid: number }): Promise<string>;
  /** Every chain in use by any workspace (its upper and lowers) or checkpoint, skipping workspace `except`. */
  liveChains(except?: string): Promise<LayerRef[][]>;
  /** Deletes these layers (unreferenced: the caller checked); a store that is gone is skipped. */
  deleteLayers(refs: readonly LayerRef[]): Promise<void>;
  /** Retained stores no chain references any more: unmounted and deleted. */
  collectStores(): Promise<void>;
  /** At remove: keep the image as a retained store when another workspace's chain uses it; true when kept. */
  retainIfShared(id: string): Promise<boolean>;
  checkpointsDir(id: string): string;
  readManifest(id: string, checkpointId: string): Promise<CheckpointManifest | undefined>;
  /** Writes the manifest atomically (a temporary file, then rename): the checkpoint's commit point. */
  writeManifest(id: string, manifest: CheckpointManifest): Promise<void>;
}

export function layeredStorage(layout: Layout, mountBase: string, root: string, helperPath: string): LayeredStorage {
  const imgArea = join(mountBase, 'img');
  const storesDir = join(layout.root, 'stores');
  const imageMount = (store: string) => join(imgArea, store);
  const retainedImage = (store: string) => join(storesDir, `${store}.img`);
  const imageOf = (store: string) => (existsSync(layout.imagePath(store)) ? layout.imagePath(store) : retainedImage(store));
  const checkpointsDir = (id: string) => join(layout.workspaceDir(id), 'checkpoints');

  async function ensureStore(store: string): Promise<void> {
    const mountPoint = imageMount(store);
    if (isMountedOver(mountPoint, imgArea)) return;
    const missing = () => {
      throw new ProviderError(`the layer store ${store} (a workspace image holding frozen layers) is missing`, {
        hint: 'the files of the workspaces and checkpoints built on it are lost; remove them',
      });
    };
    // Asked again under the image's lock: a parent and its forks remounting at once each mounted it (mount-lock.ts).
    await withImageLock(
      imageOf(store),
      `layer store ${store}`,
      async () => {
        if (isMountedOver(mountPoint, imgArea)) return;
        await ensureUnderBase(mountBase, 'img', { name: store, mode: 0o700 }, root);
        await mountWorkspaceFilesystem(imageOf(store), mountPoint);
      },
      missing,
    );
  }

  async function mountOverlay(options: string, target: string): Promise<void> {
    // cwd = the image area: every layer is named relative to it (overlay-layers.ts overlayOptions says why).
    await run(MOUNT, ['-t', 'overlay', 'overlay', '-o', options, target], { cwd: imgArea }).catch((error: unknown) => {
      const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
      throw new ProviderError(`cannot mount the workspace's layered filesystem: ${stderr.split('\n')[0]}`, {
        cause: error,
        hint: 'the native provider needs overlayfs for snapshots; doctor checks the native provider',
        action: nextAction('doctor', { provider: 'native' }),
      });
    });
  }

  /**
   * The stores of `stack` mounted, and an idmapped bind for each lower another
   * identity wrote (layer-idmaps.ts); returns the overlay's options. A bind
   * already mounted is kept (binds of one layer for one job are identical).
   */
  async function prepareLowers(id: string, stack: LayerStack, job: Identity): Promise<string> {
    for (const store of [id, ...storesOf(stack.lowers)]) await ensureStore(store);
    const plan = planLayerIdmaps(id, job, stack.lowers);
    if (plan.binds.length > 0) await mkdir(join(imageMount(id), IDMAP_DIR), { mode: 0o700 }).catch(() => undefined);
    for (const bind of plan.binds) {
      const target = join(imgArea, bind.target);
      if (isMountPoint(target)) continue;
      await mkdir(target, { mode: 0o700 }).catch(() => undefined);
      await run(helperPath, bind.argv, { cwd: imgArea }).catch((error: unknown) => {
        const stderr = String((error as { stderr?: string }).stderr ?? (error as Error).message).trim();
        throw new ProviderError(`cannot present the inherited layer ${bind.name} to native workspace ${id}: ${stderr.split('\n')[0]}`, {
          cause: error,
          hint: 'forks need idmapped mounts (Linux 5.12 or later, overlayfs over idmapped layers since 5.19); doctor checks the native provider',
          action: nextAction('doctor', { provider: 'native' }),
        });
      });
    }
    return overlayOptions({ store: id, upper: stack.upper, lowers: stack.lowers, lowerPaths: plan.lowerPaths }, `${id}/empty`);
  }

  async function mountStack(id: string, stack: LayerStack, job: Identity): Promise<void> {
    await mountOverlay(await prepareLowers(id, stack, job), join(mountBase, 'fs', id));
  }

  async function readManifest(id: string, checkpointId: string): Promise<CheckpointManifest | undefined> {
    try {
      const parsed = JSON.parse(await readFile(join(checkpointsDir(id), `${checkpointId}.json`), 'utf8')) as CheckpointManifest;
      return parsed.schema === 1 && parsed.checkpointId === checkpointId && Array.isArray(parsed.chain) ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  async function liveChains(except?: string): Promise<LayerRef[][]> {
    const chains: LayerRef[][] = [];
    for (const id of await readdir(layout.workspacesDir).catch(() => [] as string[])) {
      if (!ID_PATTERN.test(id) || id === except) continue;
      // Removed, its folder awaiting the background reclaim: its checkpoints died with it. Counting them kept the
      // retained store of a destroyed parent mounted after its last fork was destroyed (red team, session 10).
      if (existsSync(join(layout.workspaceDir(id), RECLAIM_JOURNAL))) continue;
      const meta = await readMeta(layout.metaPath(id));
      if (meta?.layers !== undefined) chains.push([{ store: id, layer: meta.layers.upper }, ...meta.layers.lowers]);
      for (const file of await readdir(checkpointsDir(id)).catch(() => [] as string[])) {
        const match = /^(.+)\.json$/.exec(file);
        const manifest = match ? await readManifest(id, match[1]!) : undefined;
        if (manifest !== undefined) chains.push(manifest.chain);
      }
    }
    return chains;
  }

  return {
    imageMount,
    layerDir: (ref) => join(imageMount(ref.store), 'layers', ref.layer),
    emptyDir: (store) => join(imageMount(store), 'empty'),
    ensureStore,
    imageBytes: (store) => statSync(imageOf(store), { throwIfNoEntry: false })?.size,
    checkpointsDir,
    readManifest,
    liveChains,
    mountStack,
    releaseIdmaps: (id) => releaseIdmapBinds(imageMount(id)),

    async writeManifest(id, manifest) {
      await mkdir(checkpointsDir(id), { mode: 0o700 }).catch(() => undefined);
      const path = join(checkpointsDir(id), `${manifest.checkpointId}.json`);
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(manifest), { mode: 0o600, flag: 'wx' });
      await rename(tmp, path);
    },

    async prepare(id, owner, stack) {
      const top = imageMount(id);
      // The image's root is the provider's, not the job's: only the upper layer is the job user's.
      await chown(top, 0, 0);
      await chmod(top, 0o700);
      for (const dir of ['layers', 'work', 'empty', 'views']) await mkdir(join(top, dir), { mode: 0o700 });
      await mkdir(join(top, 'layers', stack.upper), { mode: 0o700 });
      await chown(join(top, 'layers', stack.upper), owner.uid, owner.gid);
      await mkdir(checkpointsDir(id), { mode: 0o700 }).catch(() => undefined);
      await mountStack(id, stack, owner);
    },

    async switchStack(id, next, metaTmp, job, view) {
      const options = await prepareLowers(id, next, job);
      const target = join(mountBase, 'fs', id);
      // Under the workspace's mount lock (mount-lock.ts): a call meeting the gap between the unmount and the mount
      // waits for it instead of mounting the old stack itself, which the new one was then stacked over (red team).
      const script = [
        'cd "$1" || exit 3',
        'exec 9>>"$7" || exit 3',
        '/usr/bin/flock -w 60 9 || exit 3',
        '/usr/bin/umount "$2" || exit 3',
        'mv -f "$3" "$4" || exit 4',
        '/usr/bin/mount -t overlay overlay -o "$5" "$2" || exit 5',
        'if [ -n "$6" ]; then /usr/bin/umount "$6" && rmdir "$6"; fi',
        'exit 0',
      ].join('\n');
      await run('/bin/sh', ['-c', script, 'switch', imgArea, target, metaTmp, layout.metaPath(id), options, view ?? '', layout.mountLockPath(id)]).catch(
        (error: unknown) => {
          const code = (error as { code?: number }).code;
          const stderr = String((error as { stderr?: string }).stderr ?? '')
            .trim()
            .split('\n')[0];
          throw new ProviderError(
            code === 3
              ? `native workspace ${id}'s files are in use on the host, so its layers cannot be switched now (${stderr})`
              : `cannot switch the layered filesystem of native workspace ${id}: ${stderr}`,
            {
              cause: error,
              hint: code === 3 ? 'wait for the other headspace call on this workspace to finish, then try again' : 'doctor checks the native provider',
              action: nextAction('doctor', { provider: 'native' }),
            },
          );
        },
      );
      // Binds the new stack does not use (a restore to a chain without them) would pin other stores' images.
      await releaseIdmapBinds(imageMount(id), new Set(planLayerIdmaps(id, job, next.lowers).binds.map((bind) => bind.name)));
    },

    async mountView(id, chain) {
      if (chain.length === 0) return { root: join(imageMount(id), 'empty'), release: async () => undefined, mounted: false };
      const dir = join(imageMount(id), 'views', `${process.pid}-${Math.random().toString(16).slice(2, 10)}`);
      await mkdir(dir, { mode: 0o700 });
      for (const store of storesOf(chain)) await ensureStore(store);
      try {
        await mountOverlay(overlayOptions({ store: id, upper: null, lowers: chain }, `${id}/empty`), dir);
      } catch (error) {
        await rmdir(dir).catch(() => undefined);
        throw error;
      }
      return {
        root: dir,
        mounted: true,
        async release() {
          await unmountWorkspaceFilesystem(dir).catch(() => undefined);
          await rmdir(dir).catch(() => undefined);
        },
      };
    },

    async makeLayer(id, owner) {
      const name = `L${randomBytes(8).toString('hex')}`;
      const dir = join(imageMount(id), 'layers', name);
      await mkdir(dir, { mode: 0o700 });
      await chown(dir, owner.uid, owner.gid);
      return name;
    },

    async deleteLayers(refs) {
      for (const ref of refs) {
        if (!LAYER_NAME.test(ref.layer) || !isMountedOver(imageMount(ref.store), imgArea)) continue;
        // A layer holds what a job wrote, but one that no chain references is mounted nowhere: no job reaches it.
        await removeUnreachableTree(join(imageMount(ref.store), 'layers', ref.layer));
      }
    },

    async collectStores() {
      const retained = (await readdir(storesDir).catch(() => [] as string[])).filter((f) => /\.img$/.test(f)).map((f) => f.slice(0, -4));
      if (retained.length === 0) return;
      const used = new Set((await liveChains()).flatMap((chain) => storesOf(chain)));
      for (const store of retained) {
        if (!ID_PATTERN.test(store) || used.has(store) || existsSync(layout.workspaceDir(store))) continue;
        if ((await unmountWorkspaceFilesystem(imageMount(store)).catch(() => 'failed' as const)) === 'failed') continue;
        await rmdir(imageMount(store)).catch(() => undefined);
        await rm(retainedImage(store), { force: true });
      }
    },

    async retainIfShared(id) {
      const used = (await liveChains(id)).some((chain) => chain.some((ref) => ref.store === id));
      if (!used || !existsSync(layout.imagePath(id))) return false;
      await mkdir(storesDir, { recursive: true, mode: 0o700 });
      // Same filesystem: a rename, and the loop device follows the file.
      await rename(layout.imagePath(id), retainedImage(id));
      return true;
    },
  };
}

/**
 * Unmounts the idmapped binds on the image mounted at `imageMountDir` that
 * `keep` does not name (all of them without it). Each pins another store's
 * image, so they go before the image's own unmount (remove, leftovers).
 */
export async function releaseIdmapBinds(imageMountDir: string, keep: ReadonlySet<string> = new Set()): Promise<void> {
  const dir = join(imageMountDir, IDMAP_DIR);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!IDMAP_NAME.test(name) || keep.has(name)) continue;
    if ((await unmountWorkspaceFilesystem(join(dir, name)).catch(() => 'failed' as const)) !== 'failed') await rmdir(join(dir, name)).catch(() => undefined);
  }
}

/** True when `dir` is a mount point: used by the leftovers to tell a stray view mount. */
export function isViewMount(dir: string): boolean {
  return isMountPoint(dir) && dirname(dir).endsWith('/views');
}
