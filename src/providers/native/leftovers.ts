/**
 * What the native provider can leave behind when the process driving it is
 * killed (kill -9, OOM, power loss), found and removed for `doctor` and
 * `doctor --repair`:
 *
 *   cgroup     `headspace/<root tag>-<id>` of a workspace whose meta.json is
 *              gone (a removal, or a create, cut short)
 *   process    anything but an idle standby launcher in the cgroup (or a
 *              job slot's child cgroup) of a workspace with no live job (bwrap's --die-with-parent and the
 *              pid namespace make this rare; a placed launcher can remain)
 *   file       a job marker (any slot's) or stop sentinel whose owner is gone, a
 *              job marker no one can read (an older version's write cut short),
 *              a `meta.json.<pid>.tmp` or a marker's `job.json.<pid>.tmp` /
 *              `.<pid>.stale-<hex>` of a dead writer
 *   directory  `workspaces/<id>` without meta.json (create died before it
 *              wrote meta.json last, so nothing of the user's is in it, or
 *              a removal's background reclaim was interrupted: its journal
 *              reclaim.json is there and no reclaim holds the folder's lock;
 *              one under way is no leftover, nor are its mounts, see
 *              reclaim-storage.ts);
 *              `<runtime>/<id>` (its exec shim copy; older versions also kept
 *              generated passwd/group/hosts there) whose
 *              workspace folder is gone; it would keep the mount base
 *              from going with the last workspace
 *   mount      `<mount base>/ws/<id>` (a bind) or `<mount base>/fs/<id>` (the
 *              loop mount of its image: a create cut short after mounting, or
 *              a removal after meta.json went) of a workspace whose meta.json
 *              is gone;
 *              a loop device `/dev/loopN` still attached to an image under
 *              `workspaces/` whose workspace is gone or whose image was deleted
 *              (a lazy unmount whose last user has not let go yet, or a mount
 *              that died between attaching the device and mounting it)
 *
 * An image (`workspaces/<id>/storage.img`) left by a create that died
 * between mkfs and mount is inside a `directory` leftover and goes with it;
 * removing a directory always unmounts first, so it never recurses into a
 * mounted filesystem.
 *
 * Only this root's cgroups are looked at (the name carries the root tag, see
 * layout.ts), so two homes never sweep each other. Every removal re-checks
 * that the thing is still a leftover; the engine in addition leaves alone
 * any workspace with a live job or a live operation in another process.
 */
import { execFile } from 'node:child_process';
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { ID_PATTERN } from '../../core/ids.js';
import { egressParent, staleEgressDirs, staleTmpEgressDirs } from '../../core/network/egress-dirs.js';
import type { Leftover } from '../../core/provider.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { isAlive, liveJob, liveJobs, markerOwnerAlive, markerTemporaryPid, readJobMarker, removeQuietly, slotOfFile } from './job-marker.js';
import { isIdleLauncher } from './launch-job.js';
import type { Layout } from './layout.js';
import { releaseIdmapBinds } from './layered-storage.js';
import { finishReclaim, reclaimState } from './reclaim-storage.js';
import { detachLoopDevice, isMountPoint, loopDevicesUnder, unmountWorkspaceFilesystem } from './workspace-filesystem.js';

const run = promisify(execFile);

/** How old an unreadable job marker must be before it is a leftover: no writer takes this long between create and write. */
const UNREADABLE_MARKER_GRACE_MS = 5_000;

/** The pid of the process whose temporary `file` is (a `meta.json.<pid>.tmp`, a marker's temporary or one taken aside), if it is one. */
function temporaryWriterOf(file: string): number | undefined {
  const meta = /^meta\.json\.(\d+)\.tmp$/.exec(file);
  return meta !== null ? Number(meta[1]) : markerTemporaryPid(file);
}

async function olderThan(path: string, ms: number): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  return info !== undefined && Date.now() - info.mtimeMs > ms;
}

export interface LeftoverSweeper {
  list(): Promise<Leftover[]>;
  remove(leftover: Leftover): Promise<boolean>;
}

export function nativeLeftovers(options: {
  layout: Layout;
  mountBase: string;
  driver: () => Promise<CgroupDriver | undefined>;
  killTimeoutMs: number;
  /** HEADSPACE_HOME: its egress socket directories (core/network/egress-dirs.ts) a dead process left are leftovers too. */
  stateHome?: string;
  /** Where an older version's `hs-egress-XXXXXX` directories are looked for (the temporary directory; a test's own). */
  tmpDir?: string;
}): LeftoverSweeper {
  const { layout } = options;
  const tag = `${layout.cgroupName('')}`; // "<root tag>-"
  const hasMeta = (id: string) => exists(layout.metaPath(id));
  /** Where generated runtime files live: under the mount base as root, under the root otherwise (runtime-files.ts). */
  const runtimeDirs = [join(options.mountBase, 'runtime'), layout.runtimeDir];

  /** The parent directories holding our cgroups, one per hierarchy (from the driver's own procs paths). */
  function cgroupParents(driver: CgroupDriver): string[] {
    return [...new Set(driver.procsFiles('probe').map((file) => dirname(dirname(file))))];
  }

  async function cgroupIds(driver: CgroupDriver): Promise<string[]> {
    const ids = new Set<string>();
    for (const parent of cgroupParents(driver)) {
      for (const entry of await readdir(parent, { withFileTypes: true }).catch(() => [])) {
        if (entry.isDirectory() && entry.name.startsWith(tag)) ids.add(entry.name.slice(tag.length));
      }
    }
    return [...ids].filter((id) => ID_PATTERN.test(id)).sort();
  }

  async function strayPids(driver: CgroupDriver, id: string): Promise<number[]> {
    return (await driver.pids(layout.cgroupName(id))).filter((pid) => !isIdleLauncher(pid));
  }

  async function list(): Promise<Leftover[]> {
    const found: Leftover[] = [];
    const driver = await options.driver();
    if (driver !== undefined) {
      for (const id of await cgroupIds(driver)) {
        const name = layout.cgroupName(id);
        if (!(await hasMeta(id))) {
          const pids = await strayPids(driver, id);
          found.push({
            kind: 'cgroup',
            workspaceId: id,
            target: name,
            detail: `cgroup ${name} of workspace ${id}, which the native provider no longer holds${pids.length ? ` (processes ${pids.join(', ')} still in it)` : ''}`,
          });
        } else if ((await liveJobs(layout.workspaceDir(id))).length === 0) {
          const pids = await strayPids(driver, id);
          if (pids.length)
            found.push({
              kind: 'process',
              workspaceId: id,
              target: name,
              detail: `processes ${pids.join(', ')} in the cgroup of workspace ${id}, which runs no job`,
            });
        }
      }
    }
    for (const name of (await readdir(layout.workspacesDir).catch(() => [] as string[])).sort()) {
      if (!ID_PATTERN.test(name)) continue;
      const dir = layout.workspaceDir(name);
      if (!(await hasMeta(name))) {
        const image = (await exists(layout.imagePath(name))) ? ', holding its storage image storage.img' : '';
        const reclaim = await reclaimState(dir);
        if (reclaim === 'running') continue; // a removed workspace's storage being reclaimed in the background: not a leftover
        if ((await stat(dir).catch(() => undefined))?.isDirectory())
          found.push({
            kind: 'directory',
            workspaceId: name,
            target: dir,
            detail:
              reclaim === 'interrupted'
                ? `an interrupted reclaim: the storage of removed workspace ${name} (folder ${dir}${image}), whose background deletion stopped before it finished`
                : `workspace folder ${dir} without meta.json (a create or removal was cut short)${image}`,
          });
        continue;
      }
      const files = (await readdir(dir).catch(() => [] as string[])).sort();
      // Every job slot's marker (job.json, job-<k>.json when jobs run at once): a stale one is a leftover.
      let live = false;
      for (const file of files.filter((f) => slotOfFile(f) !== undefined)) {
        const marker = await readJobMarker(join(dir, file));
        if (marker !== undefined && markerOwnerAlive(marker)) live = true;
        else if (marker !== undefined)
          found.push({
            kind: 'file',
            workspaceId: name,
            target: join(dir, file),
            detail: `job marker of ${marker.jobId} in workspace ${name}, whose process (pid ${marker.ownerPid}) is gone`,
          });
        // Unreadable: an older version's marker cut short by a kill between its create and its write (markers are
        // published whole now). Past a moment's grace, nobody is still writing it.
        else if (await olderThan(join(dir, file), UNREADABLE_MARKER_GRACE_MS))
          found.push({
            kind: 'file',
            workspaceId: name,
            target: join(dir, file),
            detail: `unreadable job marker ${file} in workspace ${name} (a write cut short)`,
          });
      }
      for (const file of files) {
        const writer = temporaryWriterOf(file);
        const stray = /^stop-.+$/.test(file) ? !live : writer !== undefined ? !isAlive(writer) : false;
        if (stray)
          found.push({
            kind: 'file',
            workspaceId: name,
            target: join(dir, file),
            detail: `temporary file ${file} in workspace ${name}, left by a process that is gone`,
          });
      }
    }
    for (const loop of await strayLoopDevices()) {
      found.push({
        kind: 'mount',
        workspaceId: loop.id,
        target: loop.device,
        detail: `loop device ${loop.device} still attached to ${loop.deleted ? 'the deleted image' : 'the image'} ${loop.backingFile} of workspace ${loop.id}${loop.deleted ? '' : ', which the native provider no longer holds'} (released once nothing holds it)`,
      });
    }
    // A workspace's runtime directory whose workspace folder is gone (a crash in create or remove).
    for (const runtimeDir of runtimeDirs) {
      for (const id of (await readdir(runtimeDir).catch(() => [] as string[])).sort()) {
        if (!ID_PATTERN.test(id) || (await exists(layout.workspaceDir(id)))) continue;
        found.push({
          kind: 'directory',
          workspaceId: id,
          target: join(runtimeDir, id),
          detail: `generated runtime files ${join(runtimeDir, id)} of workspace ${id}, which the native provider no longer holds`,
        });
      }
    }
    // An egress socket directory whose proxy's process died (#18 F3): close() removes it otherwise.
    const home = options.stateHome;
    for (const stray of home === undefined ? [] : staleEgressDirs(home, isAlive)) {
      found.push({
        kind: 'directory',
        workspaceId: stray.workspaceId,
        target: stray.path,
        detail: `egress socket directory ${stray.path} of a job in workspace ${stray.workspaceId}, whose process (pid ${stray.pid}) is gone`,
      });
    }
    // An older version's /tmp/hs-egress-XXXXXX (no workspace or pid in its name): stale once nothing listens on its socket.
    for (const path of home === undefined ? [] : await staleTmpEgressDirs(options.tmpDir)) {
      found.push({
        kind: 'directory',
        workspaceId: null,
        target: path,
        detail: `egress socket directory ${path} of an older version's proxy, on whose socket nothing listens`,
      });
    }
    for (const [sub, what] of [
      ['fs', 'layered filesystem (overlay) or loop mount of the storage image'],
      ['img', 'loop mount of the storage image'],
      ['ws', 'bind mount'],
    ] as const) {
      const mountDir = join(options.mountBase, sub);
      for (const id of (await readdir(mountDir).catch(() => [] as string[])).sort()) {
        if (!ID_PATTERN.test(id) || (await hasMeta(id)) || (await reclaimState(layout.workspaceDir(id))) === 'running') continue;
        // A retained store (#14): the image of a removed workspace whose frozen layers a fork still uses.
        if (sub === 'img' && (await exists(join(layout.root, 'stores', `${id}.img`)))) continue;
        const target = join(mountDir, id);
        found.push({
          kind: 'mount',
          workspaceId: id,
          target,
          detail: `${isMountPoint(target) ? what : 'mount point folder'} ${target} of workspace ${id}, which the native provider no longer holds`,
        });
      }
    }
    return found;
  }

  /** Loop devices on an image of ours that is deleted or whose workspace is gone, and mounted nowhere here. */
  async function strayLoopDevices(): Promise<Array<{ id: string; device: string; backingFile: string; deleted: boolean }>> {
    const stray = [];
    for (const loop of loopDevicesUnder(layout.workspacesDir)) {
      const id = loop.backingFile.slice(layout.workspacesDir.length + 1).split('/')[0] ?? '';
      if (!ID_PATTERN.test(id) || loop.backingFile !== layout.imagePath(id) || (await reclaimState(layout.workspaceDir(id))) === 'running') continue;
      if (!loop.deleted && ((await hasMeta(id)) || isMountPoint(join(options.mountBase, 'fs', id)) || isMountPoint(join(options.mountBase, 'img', id))))
        continue; // in use, or listed as its mount
      stray.push({ id, ...loop });
    }
    return stray;
  }

  /** Removes a leftover it listed; false when the re-check found it no longer one (it was kept). */
  async function remove(leftover: Leftover): Promise<boolean> {
    if (leftover.kind === 'directory' && leftover.workspaceId === null) {
      // Re-checked at removal: a directory whose socket came to life since the listing is kept.
      if (!(await staleTmpEgressDirs(options.tmpDir)).includes(leftover.target)) return false;
      await rm(leftover.target, { recursive: true, force: true });
      return true;
    }
    const id = leftover.workspaceId;
    if (id === null || !ID_PATTERN.test(id))
      throw new ProviderError(`not a native leftover: ${leftover.target}`, {
        hint: 'this is a headspace bug: only leftovers the native provider listed can be removed',
      });
    switch (leftover.kind) {
      case 'cgroup': {
        const driver = await options.driver();
        if (driver === undefined || leftover.target !== layout.cgroupName(id) || (await hasMeta(id))) return false;
        const empty = await driver.kill(leftover.target, options.killTimeoutMs);
        if (!empty || !(await driver.remove(leftover.target)))
          throw new ProviderError(`cgroup ${leftover.target} could not be ${empty ? 'removed' : 'emptied'}`, {
            hint: 'a process in it may be stuck in the kernel (state D); in a minute, apply the repairs again',
            action: nextAction('doctor', { repair: true, apply: true }),
          });
        return true;
      }
      case 'process': {
        const driver = await options.driver();
        if (driver === undefined || leftover.target !== layout.cgroupName(id) || (await liveJobs(layout.workspaceDir(id))).length > 0) return false;
        if (!(await driver.kill(leftover.target, options.killTimeoutMs)))
          throw new ProviderError(`the processes in cgroup ${leftover.target} could not be ended`, {
            hint: 'a process in it may be stuck in the kernel (state D); in a minute, apply the repairs again',
            action: nextAction('doctor', { repair: true, apply: true }),
          });
        return true;
      }
      case 'file': {
        if (dirname(leftover.target) !== layout.workspaceDir(id))
          throw new ProviderError(`not a native leftover: ${leftover.target}`, {
            hint: 'this is a headspace bug: only leftovers the native provider listed can be removed',
          });
        const file = basename(leftover.target);
        const slot = slotOfFile(file);
        if (slot !== undefined && (await liveJob(leftover.target)) !== undefined) return false;
        if (slot !== undefined && (await readJobMarker(leftover.target)) === undefined && !(await olderThan(leftover.target, UNREADABLE_MARKER_GRACE_MS)))
          return false;
        if (file.startsWith('stop-') && (await liveJobs(layout.workspaceDir(id))).length > 0) return false;
        const writer = temporaryWriterOf(file);
        if (writer !== undefined && isAlive(writer)) return false;
        if (slot === undefined && writer === undefined && !file.startsWith('stop-'))
          throw new ProviderError(`not a native leftover: ${leftover.target}`, {
            hint: 'this is a headspace bug: only leftovers the native provider listed can be removed',
          });
        removeQuietly(leftover.target);
        return true;
      }
      case 'directory': {
        if (options.stateHome !== undefined && dirname(leftover.target) === egressParent(options.stateHome)) {
          if (!staleEgressDirs(options.stateHome, isAlive).some((d) => d.path === leftover.target)) return false;
          await rm(leftover.target, { recursive: true, force: true });
          return true;
        }
        if (runtimeDirs.some((dir) => leftover.target === join(dir, id))) {
          if (await exists(layout.workspaceDir(id))) return false;
          await rm(leftover.target, { recursive: true, force: true });
          return true;
        }
        if (leftover.target !== layout.workspaceDir(id) || (await hasMeta(id)) || (await reclaimState(leftover.target)) === 'running') return false;
        for (const dir of runtimeDirs) await rm(join(dir, id), { recursive: true, force: true });
        await unmount(join(options.mountBase, 'ws', id));
        // The image goes only once nothing mounts it (deleting it earlier would just hide it behind its loop device):
        // the overlay over it first (fs/<id>), then its own mount (img/<id>, #14), then the folder.
        await finishReclaim({ dir: leftover.target, fsMount: join(options.mountBase, 'fs', id), imageMount: join(options.mountBase, 'img', id) });
        return true;
      }
      case 'mount': {
        if (leftover.target.startsWith('/dev/loop')) {
          const stray = (await strayLoopDevices()).find((loop) => loop.device === leftover.target && loop.id === id);
          if (stray === undefined) return false;
          await detachLoopDevice(stray.device);
          return true;
        }
        if (leftover.target === join(options.mountBase, 'fs', id) || leftover.target === join(options.mountBase, 'img', id)) {
          if (await hasMeta(id)) return false;
          if (leftover.target.endsWith(`/img/${id}`) && (await exists(join(layout.root, 'stores', `${id}.img`)))) return false;
          // The overlay over an image goes before the image's own mount.
          if (leftover.target.endsWith(`/img/${id}`)) {
            await unmountWorkspaceFilesystem(join(options.mountBase, 'fs', id));
            await releaseIdmapBinds(leftover.target);
          }
          await unmountWorkspaceFilesystem(leftover.target);
          await rmdir(leftover.target).catch(() => undefined);
          if (await exists(leftover.target))
            throw new ProviderError(`mount ${leftover.target} could not be removed`, {
              hint: 'something still holds it open (fuser -vm on it names what); once it lets go, apply the repairs again',
              action: nextAction('doctor', { repair: true, apply: true }),
            });
          return true;
        }
        if (leftover.target !== join(options.mountBase, 'ws', id) || (await hasMeta(id))) return false;
        await unmount(leftover.target);
        if (await exists(leftover.target))
          throw new ProviderError(`mount ${leftover.target} could not be removed`, {
            hint: 'something still holds it open (fuser -vm on it names what); once it lets go, apply the repairs again',
            action: nextAction('doctor', { repair: true, apply: true }),
          });
        return true;
      }
    }
  }

  return { list, remove };
}

async function unmount(target: string): Promise<void> {
  if (isMountPoint(target)) await run('/usr/bin/umount', ['-l', target]).catch(() => undefined);
  await rmdir(target).catch(() => undefined);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
