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
      details.push(`cgroup v2 at ${base.delegateDir}: missing ${missing.join(', ') || 'write access'}`);
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
    const enforces = { memory: v1.memory !== undefined && writable && boundsSockets, pids: v1.pids !== undefined && writable, cpu: v1.cpu !== undefined && writable };
    const found = (['memory', 'pids', 'cpu', 'cpuacct', 'freezer'] as const).filter((c) => v1[c] !== undefined);
    details.push(`cgroup v1: ${found.join(', ')}${writable ? '' : ' (not writable)'}`);
    if (v1.memory !== undefined && !boundsSockets) details.push(`cgroup v1 memory: no ${V1_SOCKET_LIMIT_FILE} on this kernel, so socket buffers would escape the memory budget`);
    if (enforces.memory || enforces.pids || enforces.cpu) return { driver: createCgroupV1Driver(v1), details, enforces };
  }
  return { details, enforces: { memory: false, pids: false, cpu: false } };
}

async function canCreate(hierarchyDir: string): Promise<boolean> {
  if (hierarchyDir === '') return false;
  return mkdir(join(hierarchyDir, CGROUP_PARENT), { recursive: true }).then(
    () => true,
    () => false,
  );
}
