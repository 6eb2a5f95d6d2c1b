/**
 * Probes the host's cgroup layout and picks a driver: v2 when the unified
 * hierarchy offers memory, pids and cpu where we may write (root, or a
 * delegated subtree), else v1 when running as root with the v1 controllers
 * mounted. Never assumed: each branch says what it found.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { CgroupChoice } from './cgroup-driver.js';
import { readCgroupMounts, type CgroupMount } from './cgroup-fs.js';
import { CGROUP_PARENT, createCgroupV1Driver, v1ControllerDirs } from './cgroup-v1.js';
import { createCgroupV2Driver, findV2Base, V2_CONTROLLERS, v2ControllersAvailable } from './cgroup-v2.js';
import { V1_SOCKET_LIMIT_FILE } from './socket-memory.js';

export async function chooseCgroupDriver(uid = process.getuid?.() ?? -1, mounts?: CgroupMount[]): Promise<CgroupChoice> {
  const all = mounts ?? (await readCgroupMounts().catch(() => []));
  const details: string[] = [];

  const v2 = all.find((m) => m.version === 2);
  let v2Missing: string[] | undefined; // controllers a delegated v2 subtree of ours lacks
  if (v2 !== undefined) {
    const base = await findV2Base(v2.dir, uid).catch(() => undefined);
    if (base === undefined) details.push(`cgroup v2 at ${v2.dir}: no subtree owned by uid ${uid}`);
    else {
      const available = await v2ControllersAvailable(base.delegateDir);
      const missing = V2_CONTROLLERS.filter((c) => !available.includes(c));
      if (missing.length === 0 && (await canCreate(base.delegateDir))) {
        details.push(`cgroup v2 at ${base.delegateDir}: memory, pids, cpu available`);
        return { driver: createCgroupV2Driver(base), details, enforces: { memory: true, pids: true, cpu: true } };
      }
      details.push(`cgroup v2 at ${base.delegateDir} lacks ${missing.join(', ') || 'write access'}, so it is not used`);
      v2Missing = missing;
    }
  }

  const v1 = v1ControllerDirs(all);
  if (uid !== 0) {
    details.push('cgroup v1: needs root (no delegation on v1)');
  } else if (v1.memory === undefined && v1.pids === undefined && v1.cpu === undefined) {
    details.push('cgroup v1: no memory, pids or cpu controller mounted');
  } else {
    const writable = await canCreate(v1.memory ?? v1.pids ?? v1.cpu ?? '');
    // Without the socket limit, TCP/UDP buffers escape the memory budget (socket-memory.ts): memory is then not enforced.
    const boundsSockets = v1.memory !== undefined && existsSync(join(v1.memory, V1_SOCKET_LIMIT_FILE));
    const enforces = {
      memory: v1.memory !== undefined && writable && boundsSockets,
      pids: v1.pids !== undefined && writable,
      cpu: v1.cpu !== undefined && writable,
    };
    const found = (['memory', 'pids', 'cpu', 'cpuacct', 'freezer'] as const).filter((c) => v1[c] !== undefined);
    details.push(`cgroup v1: ${found.join(', ')}${writable ? '' : ' (not writable)'}`);
    if (v1.memory !== undefined && !boundsSockets)
      details.push(`cgroup v1 memory: no ${V1_SOCKET_LIMIT_FILE} on this kernel, so socket buffers would escape the memory budget`);
    // The driver in use first: "ok — cgroup v2 …: missing memory, pids, cpu" read as a failure to a new user.
    if (enforces.memory || enforces.pids || enforces.cpu)
      return {
        driver: createCgroupV1Driver(v1),
        details: [...details.filter((d) => d.startsWith('cgroup v1')), ...details.filter((d) => !d.startsWith('cgroup v1'))],
        enforces,
      };
  }
  const v2Controllers = v2 === undefined ? [] : await v2ControllersAvailable(v2.dir);
  return { details, enforces: { memory: false, pids: false, cpu: false }, remedy: cgroupRemedy({ uid, v1, v2Dir: v2?.dir, v2Controllers, v2Missing }) };
}

/**
 * The one fix for this kind of host (#12 item 12): a user cannot be given
 * cgroup v1 controllers, so where the controllers live on v1 only root
 * helps; on a v2 host a delegated subtree does (systemd's Delegate=yes);
 * a delegated subtree without the controllers needs them enabled.
 */
export function cgroupRemedy(host: {
  uid: number;
  v1: ReturnType<typeof v1ControllerDirs>;
  v2Dir: string | undefined;
  v2Controllers: string[];
  v2Missing: string[] | undefined;
}): string {
  const onV1 = host.v1.memory !== undefined || host.v1.pids !== undefined || host.v1.cpu !== undefined;
  const onV2 = V2_CONTROLLERS.every((c) => host.v2Controllers.includes(c));
  if (host.uid === 0) {
    return onV1 || onV2
      ? 'the cgroup controllers are not writable here: check that /sys/fs/cgroup is mounted read-write'
      : 'mount the memory, pids and cpu controllers: cgroup v2 (mount -t cgroup2 none /sys/fs/cgroup) or their v1 hierarchies';
  }
  if (host.v2Missing !== undefined && host.v2Missing.length > 0) {
    return `enable ${host.v2Missing.join(', ')} in your delegated cgroup (Delegate=yes in its systemd unit, or echo '${host.v2Missing.map((c) => `+${c}`).join(' ')}' > PARENT/cgroup.subtree_control as root), or run headspace as root`;
  }
  if (onV2 && host.v2Dir !== undefined)
    return 'start headspace inside a delegated cgroup v2 subtree: systemd-run --user --scope -p Delegate=yes headspace …, or run it as root';
  if (onV1) return 'this host keeps its memory, pids and cpu controllers on cgroup v1, which cannot be delegated to a user: run headspace as root (e.g. sudo)';
  return 'run headspace as root on a host with cgroup controllers, or inside a delegated cgroup v2 subtree (systemd-run --user --scope -p Delegate=yes …)';
}

async function canCreate(hierarchyDir: string): Promise<boolean> {
  if (hierarchyDir === '') return false;
  return mkdir(join(hierarchyDir, CGROUP_PARENT), { recursive: true }).then(
    () => true,
    () => false,
  );
}
