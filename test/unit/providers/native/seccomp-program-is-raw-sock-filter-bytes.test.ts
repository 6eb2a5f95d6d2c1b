/**
 * `bwrap --seccomp FD` reads a bare `struct sock_filter[]`: 8 bytes per
 * instruction, little-endian, no header. The program must be deterministic,
 * start by checking the audit architecture, and stay small: the kernel
 * caps a filter at 4096 instructions and every non-cached call walks it.
 */
import { expect, it } from 'vitest';
import { buildSeccompFilter, seccompProgram } from '../../../../src/providers/native/seccomp-program.js';
import { ARCH_TABLES } from '../../../../src/providers/native/syscall-tables.js';

it('encodes one 8-byte little-endian record per instruction, identically each time', () => {
  const bytes = seccompProgram('x86_64');
  const filter = buildSeccompFilter('x86_64');
  expect(bytes.length).toBe(filter.length * 8);
  expect(bytes.equals(seccompProgram('x86_64'))).toBe(true);
  // ld [4] (arch), then jeq AUDIT_ARCH_X86_64
  expect(bytes.readUInt16LE(0)).toBe(0x20);
  expect(bytes.readUInt32LE(4)).toBe(4);
  expect(bytes.readUInt16LE(8)).toBe(0x15);
  expect(bytes.readUInt32LE(12)).toBe(ARCH_TABLES.x86_64.auditArch);
});

it('stays a few hundred instructions, far below the kernel limit', () => {
  for (const arch of ['x86_64', 'aarch64'] as const) expect(buildSeccompFilter(arch).length).toBeLessThan(400);
});
