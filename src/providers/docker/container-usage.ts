/**
 * What a workspace's container uses now (watch's liveUsage on docker, #17),
 * read from its cgroup on this host: a few small files, well under a
 * millisecond. The Engine's stats API answers from a collector that samples
 * once a second, so a `one-shot` read still takes up to 1 s (measured: 0.05
 * to 1.05 s on Docker 20.10) — the fallback for an engine that is not on
 * this host.
 *
 * The cgroup is found as socket-cgroup.ts finds it: through the container
 * init's /proc/<pid>/cgroup, and only a path that ends in the container's
 * id is read, so a reused pid can never point at another cgroup.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LiveUsage } from '../../core/provider.js';
import { readCgroupMounts, readKeyed, readNumber } from '../native/cgroup-fs.js';

/** Pure: the container's cgroup path per v1 controller (and '' for the v2 hierarchy) from /proc/<pid>/cgroup text, only paths naming the container. */
export function containerCgroups(procCgroup: string, containerId: string): Map<string, string> {
  const found = new Map<string, string>();
  if (containerId.length < 12) return found;
  for (const line of procCgroup.split('\n')) {
    const fields = line.split(':');
    if (fields.length < 3) continue;
    const path = fields.slice(2).join(':');
    if (path.split('/').pop() !== containerId) continue;
    if (fields[0] === '0' && fields[1] === '') found.set('', path);
    else for (const controller of fields[1]!.split(',')) found.set(controller, path);
  }
  return found;
}

/** The container's usage from its cgroup files, or undefined when they cannot be read here (then the caller asks the Engine). */
export async function containerCgroupUsage(container: { id: string; pid: number }): Promise<LiveUsage | undefined> {
  if (!(container.pid > 0)) return undefined;
  let paths: Map<string, string>;
  try {
    paths = containerCgroups(readFileSync(`/proc/${container.pid}/cgroup`, 'utf8'), container.id);
  } catch {
    return undefined;
  }
  const mounts = await readCgroupMounts();
  const v1 = (controller: string, file: string): string | undefined => {
    const mount = mounts.find((m) => m.version === 1 && m.controllers.includes(controller));
    const path = paths.get(controller);
    return mount === undefined || path === undefined ? undefined : join(mount.dir, path, file);
  };
  const v2 = (file: string): string | undefined => {
    const mount = mounts.find((m) => m.version === 2);
    const path = paths.get('');
    return mount === undefined || path === undefined ? undefined : join(mount.dir, path, file);
  };
  const read = async (file: string | undefined) => (file === undefined ? undefined : readNumber(file));
  const memoryBytes = (await read(v1('memory', 'memory.usage_in_bytes'))) ?? (await read(v2('memory.current')));
  const pids = (await read(v1('pids', 'pids.current'))) ?? (await read(v2('pids.current')));
  let cpuNs = await read(v1('cpuacct', 'cpuacct.usage'));
  const cpuStat = v2('cpu.stat');
  if (cpuNs === undefined && cpuStat !== undefined) {
    const usec = (await readKeyed(cpuStat)).get('usage_usec');
    cpuNs = usec === undefined ? undefined : usec * 1000;
  }
  if (memoryBytes === undefined && pids === undefined && cpuNs === undefined) return undefined;
  return {
    ...(cpuNs === undefined ? {} : { cpuSeconds: cpuNs / 1e9 }),
    ...(memoryBytes === undefined ? {} : { memoryBytes }),
    ...(pids === undefined ? {} : { pids }),
  };
}
