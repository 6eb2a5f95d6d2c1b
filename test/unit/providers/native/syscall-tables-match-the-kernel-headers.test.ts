/**
 * A wrong syscall number silently allows the call, so the tables are checked
 * against the kernel's own headers when they are installed (linux-libc-dev).
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARCH_TABLES, type NamedSyscall } from '../../../../src/providers/native/syscall-tables.js';

const HEADERS = { x86_64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h', aarch64: '/usr/include/asm-generic/unistd.h' } as const;

describe.each(Object.entries(HEADERS))('the %s table', (arch, header) => {
  it.runIf(existsSync(header))(`matches ${header} (skipped without linux-libc-dev)`, () => {
    const text = readFileSync(header, 'utf8');
    for (const [name, nr] of Object.entries(ARCH_TABLES[arch as keyof typeof HEADERS].numbers) as Array<[NamedSyscall, number]>) {
      const match = new RegExp(`#define __NR_${name}\\s+(\\d+)`).exec(text);
      expect(match?.[1], name).toBe(String(nr));
    }
  });
});
