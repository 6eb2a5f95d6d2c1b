/**
 * What the native provider can leave behind when the process driving it is
 * killed (kill -9, OOM, power loss), found and removed for `doctor` and
 * `doctor --repair`:
 *
 *   cgroup     `headspace/<root tag>-<id>` of a workspace whose meta.json is
 *              gone (a removal, or a create, cut short)
 *   process    anything but an idle standby launcher in the cgroup of a
 *              workspace with no live job (bwrap's --die-with-parent and the
 *              pid namespace make this rare; a placed launcher can remain)
 *   file       a job marker or stop sentinel whose owner is gone, a
 *              `meta.json.<pid>.tmp` of a dead writer
 *   directory  `workspaces/<id>` without meta.json (create died before it
 *              wrote meta.json last, so nothing of the user's is in it)
 *   mount      `<mount base>/ws/<id>` of a workspace whose meta.json is gone
 *
 * Only this root's cgroups are looked at (the name carries the root tag, see
 * layout.ts), so two homes never sweep each other. Every removal re-checks
 * that the thing is still a leftover; the engine in addition leaves alone
 * any workspace with a live job or a live operation in another process.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readdir, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ProviderError } from '../../core/errors.js';
import { ID_PATTERN } from '../../core/ids.js';
import type { Leftover } from '../../core/provider.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { isAlive, liveJob, readJobMarker, removeQuietly } from './job-marker.js';
import { isIdleLauncher } from './launch-job.js';
import type { Layout } from './layout.js';

const run = promisify(execFile);

export interface LeftoverSweeper {
  list(): Promise<Leftover[]>;
  remove(leftover: Leftover): Promise<void>;
}

export function nativeLeftovers(options: { layout: Layout; mountBase: string; driver: () => Promise<CgroupDriver | undefined>; killTimeoutMs: number }): LeftoverSweeper {
  const { layout } = options;
  const tag = `${layout.cgroupName('')}`; // "<root tag>-"
  const hasMeta = (id: string) => exists(layout.metaPath(id));

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
          found.push({ kind: 'cgroup', workspaceId: id, target: name, detail: `cgroup ${name} of workspace ${id}, which the native provider no longer holds${pids.length ? ` (processes ${pids.join(', ')} still in it)` : ''}` });
        } else if ((await liveJob(layout.jobPath(id))) === undefined) {
          const pids = await strayPids(driver, id);
          if (pids.length) found.push({ kind: 'process', workspaceId: id, target: name, detail: `processes ${pids.join(', ')} in the cgroup of workspace ${id}, which runs no job` });
        }
      }
    }
    for (const name of (await readdir(layout.workspacesDir).catch(() => [] as string[])).sort()) {
      if (!ID_PATTERN.test(name)) continue;
      const dir = layout.workspaceDir(name);
      if (!(await hasMeta(name))) {
        if ((await stat(dir).catch(() => undefined))?.isDirectory()) found.push({ kind: 'directory', workspaceId: name, target: dir, detail: `workspace folder ${dir} without meta.json (a create or removal was cut short)` });
        continue;
      }
      const marker = await readJobMarker(layout.jobPath(name));
      const live = marker !== undefined && isAlive(marker.ownerPid);
      if (marker !== undefined && !live) found.push({ kind: 'file', workspaceId: name, target: layout.jobPath(name), detail: `job marker of ${marker.jobId} in workspace ${name}, whose process (pid ${marker.ownerPid}) is gone` });
      for (const file of (await readdir(dir).catch(() => [] as string[])).sort()) {
        const stray = /^stop-.+$/.test(file) ? !live : /^meta\.json\.(\d+)\.tmp$/.test(file) ? !isAlive(Number(/\d+/.exec(file)![0])) : false;
        if (stray) found.push({ kind: 'file', workspaceId: name, target: join(dir, file), detail: `temporary file ${file} in workspace ${name}, left by a process that is gone` });
      }
    }
    const mountDir = join(options.mountBase, 'ws');
    for (const id of (await readdir(mountDir).catch(() => [] as string[])).sort()) {
      if (!ID_PATTERN.test(id) || (await hasMeta(id))) continue;
      const target = join(mountDir, id);
      found.push({ kind: 'mount', workspaceId: id, target, detail: `${isMountPoint(target) ? 'bind mount' : 'mount point folder'} ${target} of workspace ${id}, which the native provider no longer holds` });
    }
    return found;
  }

  async function remove(leftover: Leftover): Promise<void> {
    const id = leftover.workspaceId;
    if (id === null || !ID_PATTERN.test(id)) throw new ProviderError(`not a native leftover: ${leftover.target}`);
    switch (leftover.kind) {
      case 'cgroup': {
        const driver = await options.driver();
        if (driver === undefined || leftover.target !== layout.cgroupName(id) || (await hasMeta(id))) return;
        const empty = await driver.kill(leftover.target, options.killTimeoutMs);
        if (!empty || !(await driver.remove(leftover.target))) throw new ProviderError(`cgroup ${leftover.target} could not be ${empty ? 'removed' : 'emptied'}`);
        return;
      }
      case 'process': {
        const driver = await options.driver();
        if (driver === undefined || leftover.target !== layout.cgroupName(id) || (await liveJob(layout.jobPath(id))) !== undefined) return;
        if (!(await driver.kill(leftover.target, options.killTimeoutMs))) throw new ProviderError(`the processes in cgroup ${leftover.target} could not be ended`);
        return;
      }
      case 'file': {
        if (dirname(leftover.target) !== layout.workspaceDir(id)) throw new ProviderError(`not a native leftover: ${leftover.target}`);
        const file = basename(leftover.target);
        if (file === 'job.json' && (await liveJob(leftover.target)) !== undefined) return;
        if (file.startsWith('stop-') && (await liveJob(layout.jobPath(id))) !== undefined) return;
        if (file !== 'job.json' && !file.startsWith('stop-') && !/^meta\.json\.\d+\.tmp$/.test(file)) throw new ProviderError(`not a native leftover: ${leftover.target}`);
        removeQuietly(leftover.target);
        return;
      }
      case 'directory': {
        if (leftover.target !== layout.workspaceDir(id) || (await hasMeta(id))) return;
        await unmount(join(options.mountBase, 'ws', id));
        await rm(leftover.target, { recursive: true, force: true, maxRetries: 3 });
        return;
      }
      case 'mount': {
        if (leftover.target !== join(options.mountBase, 'ws', id) || (await hasMeta(id))) return;
        await unmount(leftover.target);
        if (await exists(leftover.target)) throw new ProviderError(`mount ${leftover.target} could not be removed`);
        return;
      }
    }
  }

  return { list, remove };
}

async function unmount(target: string): Promise<void> {
  if (isMountPoint(target)) await run('/usr/bin/umount', ['-l', target]).catch(() => undefined);
  await rmdir(target).catch(() => undefined);
}

function isMountPoint(path: string): boolean {
  try {
    const mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
    return mountinfo.split('\n').some((line) => line.split(' ')[4] === path);
  } catch {
    return false;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
