/**
 * What a crash inside a snapshot operation (#14) can leave, found for doctor
 * and removed by doctor --repair (native-snapshots.ts orders the steps so
 * that nothing of it reads as a valid checkpoint):
 *
 *   directory  a layer directory no workspace and no checkpoint references
 *              (a checkpoint or restore that died between making a new upper
 *              and recording it, or a drop that died before deleting)
 *   mount      a read-only view `<img>/<id>/views/<pid>-…` whose process is gone
 *   file       a checkpoint manifest's `<id>.json.<pid>.tmp` of a dead writer;
 *              a retained store `<root>/stores/<store>.img` no chain uses any more
 *
 * Every removal re-checks that the thing is still unreferenced or its owner
 * still gone, and the engine leaves alone workspaces with a live operation.
 */
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ProviderError } from '../../core/errors.js';
import { ID_PATTERN } from '../../core/ids.js';
import type { Leftover } from '../../core/provider.js';
import { isAlive } from './job-marker.js';
import type { LayeredStorage } from './layered-storage.js';
import type { Layout } from './layout.js';
import { LAYER_NAME, unreferencedLayers, type LayerRef } from './overlay-layers.js';
import { isMountPoint, unmountWorkspaceFilesystem } from './workspace-filesystem.js';
import { readMeta } from './workspace-meta.js';

const VIEW_NAME = /^(\d+)-[0-9a-f]+$/;
const MANIFEST_TMP = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}\.json\.(\d+)\.tmp$/;

export interface SnapshotLeftovers {
  list(): Promise<Leftover[]>;
  /** True when the leftover was one of these (and is handled). */
  remove(leftover: Leftover): Promise<boolean>;
}

export function snapshotLeftovers(layout: Layout, layered: LayeredStorage): SnapshotLeftovers {
  const storesDir = join(layout.root, 'stores');

  /** The stores whose images are mounted here: layered workspaces and retained stores. */
  async function stores(): Promise<string[]> {
    const found: string[] = [];
    for (const id of await readdir(layout.workspacesDir).catch(() => [] as string[]))
      if (ID_PATTERN.test(id) && (await readMeta(layout.metaPath(id)))?.layers !== undefined) found.push(id);
    for (const file of await readdir(storesDir).catch(() => [] as string[])) if (/\.img$/.test(file)) found.push(file.slice(0, -4));
    return found.filter((id) => ID_PATTERN.test(id) && isMountPoint(layered.imageMount(id))).sort();
  }

  async function orphanLayers(store: string): Promise<LayerRef[]> {
    const names = (await readdir(join(layered.imageMount(store), 'layers')).catch(() => [] as string[])).filter((n) => LAYER_NAME.test(n));
    return unreferencedLayers(
      names.map((layer) => ({ store, layer })),
      await layered.liveChains(),
    );
  }

  async function list(): Promise<Leftover[]> {
    const found: Leftover[] = [];
    for (const store of await stores()) {
      for (const ref of await orphanLayers(store))
        found.push({
          kind: 'directory',
          workspaceId: store,
          target: layered.layerDir(ref),
          detail: `layer ${ref.layer} on the image of ${store}, which no workspace and no checkpoint uses (a snapshot operation was cut short)`,
        });
      const views = join(layered.imageMount(store), 'views');
      for (const name of (await readdir(views).catch(() => [] as string[])).sort()) {
        const match = VIEW_NAME.exec(name);
        if (match && !isAlive(Number(match[1])))
          found.push({ kind: 'mount', workspaceId: store, target: join(views, name), detail: `checkpoint view ${name} of ${store}, whose process is gone` });
      }
    }
    for (const id of (await readdir(layout.workspacesDir).catch(() => [] as string[])).sort()) {
      if (!ID_PATTERN.test(id)) continue;
      for (const file of (await readdir(layered.checkpointsDir(id)).catch(() => [] as string[])).sort()) {
        const match = MANIFEST_TMP.exec(file);
        if (match && !isAlive(Number(match[1])))
          found.push({
            kind: 'file',
            workspaceId: id,
            target: join(layered.checkpointsDir(id), file),
            detail: `unfinished checkpoint record ${file} of ${id}, left by a process that is gone`,
          });
      }
    }
    const used = new Set((await layered.liveChains()).flatMap((chain) => chain.map((ref) => ref.store)));
    for (const file of (await readdir(storesDir).catch(() => [] as string[])).sort()) {
      const store = file.replace(/\.img$/, '');
      if (!/\.img$/.test(file) || !ID_PATTERN.test(store) || used.has(store)) continue;
      found.push({ kind: 'file', workspaceId: store, target: join(storesDir, file), detail: `retained layer store ${file}, which no fork uses any more` });
    }
    return found;
  }

  async function remove(leftover: Leftover): Promise<boolean> {
    const store = leftover.workspaceId;
    if (store === null || !ID_PATTERN.test(store)) return false;
    const target = leftover.target;
    if (leftover.kind === 'directory' && dirname(target) === join(layered.imageMount(store), 'layers')) {
      const ref = { store, layer: basename(target) };
      if ((await orphanLayers(store)).some((orphan) => orphan.layer === ref.layer)) await layered.deleteLayers([ref]);
      return true;
    }
    if (leftover.kind === 'mount' && dirname(target) === join(layered.imageMount(store), 'views')) {
      const match = VIEW_NAME.exec(basename(target));
      if (match === null || isAlive(Number(match[1]))) return true;
      await unmountWorkspaceFilesystem(target);
      await rmdir(target).catch(() => undefined);
      return true;
    }
    if (leftover.kind === 'file' && dirname(target) === layered.checkpointsDir(store)) {
      const match = MANIFEST_TMP.exec(basename(target));
      if (match === null)
        throw new ProviderError(`not a native leftover: ${target}`, {
          hint: 'this is a headspace bug: only leftovers the native provider listed can be removed',
        });
      if (!isAlive(Number(match[1]))) await rm(target, { force: true });
      return true;
    }
    if (leftover.kind === 'file' && target === join(storesDir, `${store}.img`)) {
      if ((await stat(target).catch(() => undefined)) !== undefined) await layered.collectStores();
      return true;
    }
    return false;
  }

  return { list, remove };
}
