/**
 * /proc entries a job must not read (#10 item 12): what Docker masks, plus
 * the kernel's command line (on these VMs it names the host agent's vsock
 * ports), its config, symbol table, module list and memory maps. Files are
 * covered with /dev/null, directories with an empty tmpfs.
 *
 * bwrap cannot create a mount point inside /proc, so only entries that exist
 * are masked; the job's /proc comes from the same kernel as ours, so our own
 * /proc says which exist. Only entries others may read are covered: the job
 * uid owns nothing in /proc outside its own pids, so a root-only entry
 * (0400: kmsg, slabinfo, vmallocinfo, kpage* on this kernel) is already
 * refused, and each mount costs every job about 50 µs of bwrap's time. /sys
 * is not mounted in the sandbox at all, so Docker's /sys/firmware mask has
 * nothing to cover here.
 *
 * Host-wide and still readable, on purpose: static facts tools need
 * (cpuinfo, meminfo, stat, loadavg, uptime, version, filesystems) and the
 * memory allocator's counters (vmstat, zoneinfo, buddyinfo). They show how
 * busy the host is, not what any one workspace is or does; hiding them takes
 * a FUSE layer like LXCFS. /proc/sys/fs/file-nr and kernel/pty/nr stay for
 * the same reason (README "not covered").
 */
import { statSync } from 'node:fs';

export interface ProcMask {
  path: string;
  kind: 'file' | 'dir';
}

export const PROC_MASK_CANDIDATES: readonly string[] = [
  // Docker's masked paths under /proc
  '/proc/acpi',
  '/proc/asound',
  '/proc/interrupts',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/proc/timer_list',
  '/proc/timer_stats',
  // kernel identity, layout and addresses
  '/proc/bootconfig',
  '/proc/cmdline',
  '/proc/config.gz',
  '/proc/iomem',
  '/proc/ioports',
  '/proc/kallsyms',
  '/proc/kmsg',
  '/proc/kpagecgroup',
  '/proc/kpagecount',
  '/proc/kpageflags',
  '/proc/modules',
  '/proc/mtrr',
  '/proc/pagetypeinfo',
  '/proc/slabinfo',
  '/proc/sysrq-trigger',
  '/proc/vmallocinfo',
  // host block devices and drivers (loop devices name other workspaces' images)
  '/proc/driver',
  '/proc/fs',
  // every workspace's loop device, its size and live I/O counters (red team 2, item 3); swap files by host path
  '/proc/partitions',
  '/proc/diskstats',
  '/proc/swaps',
  // host-wide live activity: pressure stall figures and per-CPU softirq counts (like interrupts, which Docker masks)
  '/proc/pressure',
  '/proc/softirqs',
  // a stable identity of this host's boot, the same in every workspace: it would link jobs of different workspaces
  '/proc/sys/kernel/random/boot_id',
];

/** The candidates present on this kernel and readable by others, with their kind. */
export function existingProcMasks(candidates: readonly string[] = PROC_MASK_CANDIDATES): ProcMask[] {
  const masks: ProcMask[] = [];
  for (const path of candidates) {
    try {
      const info = statSync(path);
      if ((info.mode & 0o004) === 0) continue; // root-only: the job uid is refused already
      masks.push({ path, kind: info.isDirectory() ? 'dir' : 'file' });
    } catch {
      // absent on this kernel: nothing to mask (and bwrap could not mount over it)
    }
  }
  return masks;
}
