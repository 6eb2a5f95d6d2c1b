/**
 * Socket buffers count against the memory budget on both cgroup versions.
 * v1 bounds them with a limit of their own (memory.kmem.tcp.limit_in_bytes):
 * a quarter of the memory budget, never more than an eighth of the host's
 * socket "no pressure" line, in whole pages. v2 needs no such file because
 * memory.max covers socket memory: its plan writes memory.max and nothing
 * socket-specific.
 */
import { describe, expect, it } from 'vitest';
import { planV2Limits } from '../../../../src/providers/native/cgroup-v2.js';
import { hostNoPressurePages, socketBufferLimit } from '../../../../src/providers/native/socket-memory.js';
import { DEFAULT_BUDGET } from '../../../../src/core/policy/policy.js';

const MiB = 1024 * 1024;

describe('the v1 socket buffer limit', () => {
  it('is a quarter of the memory budget on a host with room', () => {
    expect(socketBufferLimit(64 * MiB, 287_898)).toBe(16 * MiB);
    expect(socketBufferLimit(512 * MiB, 287_898)).toBe(128 * MiB);
    expect(socketBufferLimit(16 * MiB)).toBe(4 * MiB);
  });

  it('never passes an eighth of the host tcp_mem[0] however large the budget', () => {
    // This VM: tcp_mem[0] = 287898 pages (1.1 GiB); a 20 GiB budget must not take the host's TCP to pressure.
    expect(socketBufferLimit(20 * 1024 * MiB, 287_898)).toBe(Math.floor(287_898 / 8) * 4096);
  });

  it('is whole pages, as the kernel stores it', () => {
    expect(socketBufferLimit(16 * MiB + 12_345) % 4096).toBe(0);
  });

  it('reads the smaller of tcp_mem[0] and udp_mem[0], and nothing when /proc lacks them', () => {
    const files: Record<string, string> = {
      '/proc/sys/net/ipv4/tcp_mem': '287898\t383867\t575796\n',
      '/proc/sys/net/ipv4/udp_mem': '575799\t767734\t1151598\n',
    };
    expect(hostNoPressurePages((f) => files[f]!)).toBe(287_898);
    expect(
      hostNoPressurePages(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });
});

describe('the v2 plan', () => {
  it('bounds memory, sockets included, with memory.max alone', () => {
    const plan = planV2Limits({ ...DEFAULT_BUDGET, memoryBytes: 64 * MiB });
    expect(plan.find((l) => l.file === 'memory.max')?.value).toBe(String(64 * MiB));
    expect(plan.map((l) => l.file)).toEqual(['memory.max', 'memory.swap.max', 'pids.max', 'cpu.max']);
    expect(plan.filter((l) => /tcp|sock/.test(l.file))).toEqual([]);
  });
});
