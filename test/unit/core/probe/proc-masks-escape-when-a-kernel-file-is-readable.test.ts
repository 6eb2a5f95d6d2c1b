/**
 * proc-masks: the kernel's command line, symbols, config, the files Docker
 * masks, other workspaces' block devices and I/O (partitions, diskstats),
 * host-wide pressure and the host's boot id must read as nothing inside
 * (refused, empty or absent). Any content is an escape; the evidence
 * carries names and sizes only.
 */
import { describe, expect, it } from 'vitest';
import { PROC_PROBES, procMasks } from '../../../../src/core/probe/scenarios-descriptors.js';
import { job } from './facts.js';

describe('proc-masks', () => {
  it('is contained when every file is refused, empty or absent', () => {
    const out = 'refused: /proc/cmdline Permission denied\nempty: /proc/acpi 0 entries\nabsent: /proc/kcore\nprobe-done\n';
    expect(procMasks.judge(job(out), {})).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('1 refused, 1 empty') });
  });

  it('escapes when a file has content or a masked directory lists entries, naming them with sizes', () => {
    const out = 'read: /proc/cmdline 553 bytes\nlisted: /proc/fs 4 entries\nrefused: /proc/kallsyms Permission denied\nprobe-done\n';
    const verdict = procMasks.judge(job(out), {});
    expect(verdict.verdict).toBe('escaped');
    expect(verdict.evidence).toContain('/proc/cmdline 553');
    expect(verdict.evidence).toContain('/proc/fs 4');
  });

  it("tries the block-device tables, pressure and the host's boot id", () => {
    expect(PROC_PROBES).toEqual(expect.arrayContaining(['/proc/partitions', '/proc/diskstats', '/proc/pressure', '/proc/sys/kernel/random/boot_id']));
  });

  it("escapes when a workspace's loop device or the boot id can be read", () => {
    const out = 'read: /proc/partitions 274 bytes\nread: /proc/sys/kernel/random/boot_id 37 bytes\nlisted: /proc/pressure 3 entries\nprobe-done\n';
    const verdict = procMasks.judge(job(out), {});
    expect(verdict.verdict).toBe('escaped');
    for (const part of ['/proc/partitions 274', '/proc/sys/kernel/random/boot_id 37', '/proc/pressure 3']) expect(verdict.evidence).toContain(part);
  });

  it('is skipped when the attempt did not report', () => {
    expect(procMasks.judge(job('', 'failure', 127), {}).verdict).toBe('skipped');
  });
});
