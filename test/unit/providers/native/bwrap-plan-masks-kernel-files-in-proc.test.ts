/**
 * The job's /proc hides what names or maps the host kernel (#10 item 12):
 * each mask the planner is given becomes a read-only cover placed after
 * `--proc` (files under /dev/null, directories under an empty tmpfs), and
 * the host-side list holds Docker's set plus the kernel's command line,
 * config, symbols and module list, other workspaces' block devices and live
 * I/O, host-wide pressure and the host's boot id, limited to what exists and
 * others may read (a root-only entry is refused to the job uid already).
 */
import { expect, it } from 'vitest';
import { planBwrap } from '../../../../src/providers/native/plan-bwrap.js';
import { existingProcMasks, PROC_MASK_CANDIDATES } from '../../../../src/providers/native/proc-masks.js';
import { bwrapPlanInput } from './bwrap-plan-input.js';

const plan = (procMasks: Parameters<typeof planBwrap>[0]['procMasks']) => planBwrap(bwrapPlanInput({ procMasks })).args;

it('covers a file with /dev/null and a directory with an empty tmpfs, after /proc is mounted', () => {
  const args = plan([
    { path: '/proc/cmdline', kind: 'file' },
    { path: '/proc/acpi', kind: 'dir' },
  ]);
  const proc = args.indexOf('--proc');
  const file = args.indexOf('/proc/cmdline');
  expect(args.slice(file - 2, file + 1)).toEqual(['--ro-bind', '/dev/null', '/proc/cmdline']);
  const dir = args.indexOf('/proc/acpi');
  expect(args.slice(dir - 3, dir + 1)).toEqual(['--perms', '0555', '--tmpfs', '/proc/acpi']);
  expect(args.indexOf('/dev')).toBeGreaterThan(dir);
  expect(proc).toBeLessThan(file - 2);
  expect(proc).toBeLessThan(dir - 3);
});

it('refuses a mask outside /proc', () => {
  expect(() => plan([{ path: '/etc/passwd', kind: 'file' }])).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
});

it("lists Docker's masked /proc paths and the kernel's command line, config, symbols and modules", () => {
  for (const path of [
    '/proc/acpi',
    '/proc/asound',
    '/proc/kcore',
    '/proc/keys',
    '/proc/latency_stats',
    '/proc/timer_list',
    '/proc/timer_stats',
    '/proc/sched_debug',
    '/proc/scsi',
  ]) {
    expect(PROC_MASK_CANDIDATES).toContain(path);
  }
  for (const path of ['/proc/cmdline', '/proc/config.gz', '/proc/kallsyms', '/proc/modules', '/proc/vmallocinfo', '/proc/sysrq-trigger'])
    expect(PROC_MASK_CANDIDATES).toContain(path);
});

it("lists other workspaces' block devices and I/O, host-wide pressure and softirqs, swap files and the host's boot id", () => {
  for (const path of ['/proc/partitions', '/proc/diskstats', '/proc/swaps', '/proc/pressure', '/proc/softirqs', '/proc/sys/kernel/random/boot_id'])
    expect(PROC_MASK_CANDIDATES).toContain(path);
});

it('keeps only the candidates that exist and others may read, each with its kind', () => {
  const masks = existingProcMasks(['/proc/self', '/proc/version', '/proc/no-such-entry-here', '/proc/self/mem']);
  expect(masks).toEqual(
    process.platform === 'linux'
      ? [
          { path: '/proc/self', kind: 'dir' },
          { path: '/proc/version', kind: 'file' },
        ]
      : [],
  );
});
