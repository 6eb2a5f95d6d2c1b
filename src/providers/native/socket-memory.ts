/**
 * Socket buffers and the memory budget (second red team, item 1).
 *
 * cgroup v1 keeps socket memory on a counter of its own, and charges a
 * workspace for it only once `memory.kmem.tcp.limit_in_bytes` is written for
 * its cgroup: before that, a job with a 64 MiB budget queued 1.6 GiB in
 * loopback TCP buffers (memory.usage_in_bytes stayed at 6 MB) and pushed the
 * host past tcp_mem[1]. Socket memory is counted against the host-global
 * tcp_mem/udp_mem, past whose third figure TCP fails for every service on
 * the host, so this limit protects the host as well as the budget.
 *
 * Measured on kernel 6.18 (cgroup v1): with the limit set, TCP and UDP
 * buffers are both charged to it (UDP too, though the file says tcp); a job
 * at the limit is not OOM-killed: a non-blocking send gets EAGAIN, a
 * blocking one waits, UDP datagrams past it are dropped at the receiver.
 * The kernel logs once per boot that the file is deprecated; a kernel
 * without it cannot bound socket memory on v1, and the driver probe then
 * refuses to call memory enforced (choose-cgroup-driver.ts).
 *
 * On cgroup v2, memory.max covers socket memory (memory.stat `sock`): no
 * second limit exists or is needed there (cgroup-v2.ts).
 */
import { readFileSync } from 'node:fs';

/** The v1 file that turns on, and bounds, socket memory accounting for a memory cgroup. */
export const V1_SOCKET_LIMIT_FILE = 'memory.kmem.tcp.limit_in_bytes';

const PAGE = 4096;

/**
 * Pure: bytes of socket buffers a workspace may hold on v1, on top of its
 * memory budget (v1 cannot put both under one limit).
 *
 * A quarter of the memory budget, so a workspace's total stays within 1.25×
 * its budget (16 MiB budget → 4 MiB, default 512 MiB → 128 MiB; enough for
 * loopback servers and tests: a socket at the limit slows, it does not
 * fail). And never more than an eighth of the host's socket "no pressure"
 * line (min of tcp_mem[0] and udp_mem[0], in pages): a large budget must not
 * let one workspace drive the host's TCP into pressure or to tcp_mem[2] —
 * it takes eight workspaces at their limit to reach the pressure line.
 * Whole pages, as the kernel stores it (so reading it back compares equal).
 */
export function socketBufferLimit(memoryBytes: number, hostNoPressurePages?: number): number {
  const quarter = Math.floor(memoryBytes / 4);
  const hostShare = hostNoPressurePages === undefined || !(hostNoPressurePages > 0) ? Infinity : Math.floor(hostNoPressurePages / 8) * PAGE;
  return Math.max(PAGE, Math.floor(Math.min(quarter, hostShare) / PAGE) * PAGE);
}

/** min(tcp_mem[0], udp_mem[0]) in pages, read from the host's /proc; undefined when unreadable. */
export function hostNoPressurePages(read: (file: string) => string = (file) => readFileSync(file, 'utf8')): number | undefined {
  const first = (file: string) => {
    try {
      const value = Number(read(file).trim().split(/\s+/)[0]);
      return value > 0 ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const found = [first('/proc/sys/net/ipv4/tcp_mem'), first('/proc/sys/net/ipv4/udp_mem')].filter((v): v is number => v !== undefined);
  return found.length === 0 ? undefined : Math.min(...found);
}
