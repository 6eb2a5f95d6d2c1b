/**
 * Socket buffers on a cgroup v1 engine (probe socket-memory): the plan asks
 * for KernelMemoryTCP (plan-container.ts), but the runtime Docker 20.10
 * ships with (runc 1.1) ignores it — measured: the container's
 * memory.kmem.tcp.limit_in_bytes stayed unlimited and a 128 MiB job held
 * 512 MiB of TCP and 512 MiB of UDP buffers. So, as the native provider
 * does (native/socket-memory.ts), the planned figure is written to the
 * container's own memory cgroup on this host and read back, each time the
 * container is started or first looked up by a process. Without it the
 * kernel charges no socket memory to the container; with it TCP and UDP
 * buffers are both charged and bounded.
 *
 * Only for an engine on this host: the container's cgroup is found through
 * its init's /proc/<pid>/cgroup (the engine's pid namespace is this host's
 * when its socket is local), checked to end in the container's id.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ProviderError } from '../../core/errors.js';
import { readCgroupMounts } from '../native/cgroup-fs.js';
import { V1_SOCKET_LIMIT_FILE } from '../native/socket-memory.js';

/** Pure: the container's path in the v1 memory hierarchy from /proc/<pid>/cgroup text, only if it names the container. */
export function memoryCgroupOf(procCgroup: string, containerId: string): string | undefined {
  for (const line of procCgroup.split('\n')) {
    const fields = line.split(':');
    if (fields.length < 3) continue;
    const controllers = fields[1]!;
    const path = fields.slice(2).join(':');
    if (controllers.split(',').includes('memory') && containerId.length >= 12 && path.split('/').pop() === containerId) return path;
  }
  return undefined;
}

/** Writes `bytes` (whole pages) as the container's socket-memory limit unless it already holds it, then reads it back. */
export async function boundContainerSockets(container: { id: string; pid: number; bytes: number }): Promise<void> {
  const fail = (why: string) =>
    new ProviderError(`socket buffers of the workspace container cannot be bounded: ${why}`, {
      hint: 'run the Docker Engine on this host (a local socket) with headspace as root, or on cgroup v2, where memory.max covers socket memory',
    });
  if (!(container.pid > 0)) throw fail('the container is not running');
  const mount = (await readCgroupMounts()).find((m) => m.version === 1 && m.controllers.includes('memory'));
  if (mount === undefined) throw fail('no cgroup v1 memory hierarchy is mounted on this host');
  let own: string | undefined;
  try {
    own = memoryCgroupOf(readFileSync(`/proc/${container.pid}/cgroup`, 'utf8'), container.id);
  } catch {
    own = undefined;
  }
  if (own === undefined) throw fail(`the container's init (pid ${container.pid}) is not visible here in the container's own memory cgroup`);
  const file = join(mount.dir, own, V1_SOCKET_LIMIT_FILE);
  const value = String(Math.floor(container.bytes / 4096) * 4096);
  try {
    if (readFileSync(file, 'utf8').trim() !== value) writeFileSync(file, value);
  } catch (error) {
    throw fail(`${file}: ${(error as Error).message.slice(0, 120)}`);
  }
  const kept = readFileSync(file, 'utf8').trim();
  if (kept !== value) throw fail(`the kernel did not keep ${value} in ${file} (it reads ${kept.slice(0, 30)})`);
}
