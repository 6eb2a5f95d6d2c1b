/**
 * The native provider's remove: ask its live jobs to stop, drop this
 * instance's standbys, empty and remove its cgroups, then its storage and
 * runtime directory. meta.json goes before the storage, so no other call
 * mounts the image again while it is taken down; a crash from there on
 * leaves a folder without meta.json, which leftovers.ts removes.
 *
 * Storage on an image is usually not deleted here: once the workspace is
 * unreachable (processes gone, cgroups removed, its overlay unmounted) the
 * image's unmount and deletion run in the background (reclaim-storage.ts),
 * and the storage is reported as `reclaiming`, never as `removed`.
 */
import { rm, writeFile } from 'node:fs/promises';
import { validateId } from '../../core/ids.js';
import type { RemovableResource, RemovalDisposition } from '../../core/provider.js';
import { liveJobs } from './job-marker.js';
import type { NativeParts } from './native-parts.js';
import { removeRuntimeFiles } from './runtime-files.js';

export async function removeNativeWorkspace(parts: NativeParts, id: string): Promise<RemovalDisposition> {
  const { layout, host, storage } = parts;
  validateId('workspace', id);
  const sorted: Record<'removed' | 'retained' | 'unverified' | 'reclaiming', RemovableResource[]> = {
    removed: [],
    retained: [],
    unverified: [],
    reclaiming: [],
  };
  const driver = await host.driver();
  for (const live of await liveJobs(layout.workspaceDir(id)))
    await writeFile(layout.stopSentinelPath(id, live.jobId), `${process.pid}\n`).catch(() => undefined);
  await parts.standbys.drop(layout.cgroupName(id));
  parts.execHelper.forget(id);
  sorted[driver === undefined ? 'unverified' : await parts.cgroups.remove(driver, id)].push('runtime');
  const paths = await host.reachable();
  await paths.release(id).catch(() => undefined);
  await rm(layout.metaPath(id), { force: true });
  // Its runtime directory (the shim's copy) goes with it, BEFORE the storage: storage.remove may start the background
  // reclaim, whose shell takes the mount base away with the last workspace (#10 item 12) and raced this removal:
  // finding runtime/<id> still there, its rmdir left the base and an empty runtime/ behind, with the home marker
  // already gone (fresh-clone CI runs left 19 such bases in /run/headspace-native, named by doctor as leftovers).
  await removeRuntimeFiles(paths.runtimeDir(id)).catch(() => undefined);
  sorted[await storage.remove(id)].push('storage');
  // A reclaim takes the mount base away itself once it has deleted the folder (the folder keeps it until then).
  if (sorted.reclaiming.length === 0) await storage.prune();
  const { reclaiming, ...rest } = sorted;
  return reclaiming.length === 0 ? rest : { ...rest, reclaiming };
}
