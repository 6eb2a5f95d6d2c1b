/**
 * A wrong syscall number misjudges a call (allowing what was meant to be
 * refused), so both tables are checked against the kernel's own headers when
 * they are installed (linux-libc-dev): every number a header defines maps to
 * the name the header gives it, and every name the header knows has the
 * header's number. Numbers newer than the headers (Debian 12's stop at 450)
 * are pinned in syscall-numbers.ts with their source.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARCH_TABLES, type SeccompArch } from '../../../../src/providers/native/syscall-tables.js';

const HEADERS: Record<SeccompArch, string> = { x86_64: '/usr/include/x86_64-linux-gnu/asm/unistd_64.h', aarch64: '/usr/include/asm-generic/unistd.h' };

/**
 * Number → names a header gives it. asm-generic names some numbers through
 * `__NR3264_*` and has 32-bit aliases (fcntl64, mmap2, ...) and
 * per-architecture alternatives (sync_file_range2) for the same number, so a
 * number may carry several names; ours must be one of them.
 */
function parse(text: string): Map<number, Set<string>> {
  const alias = new Map<string, number>();
  for (const m of text.matchAll(/#define __NR3264_(\w+)\s+(\d+)/g)) alias.set(m[1]!, Number(m[2]));
  const byNumber = new Map<number, Set<string>>();
  const add = (nr: number, name: string) => byNumber.set(nr, (byNumber.get(nr) ?? new Set()).add(name));
  for (const m of text.matchAll(/#define __NR_(\w+)\s+(\d+)/g)) if (m[1] !== 'syscalls' && m[1] !== 'arch_specific_syscall') add(Number(m[2]), m[1]!);
  for (const m of text.matchAll(/#define __NR_(\w+)\s+__NR3264_(\w+)/g)) {
    const nr = alias.get(m[2]!);
    if (nr !== undefined) add(nr, m[1]!); // stat/lstat: no __NR3264_stat on 64-bit generic architectures
  }
  return byNumber;
}

/** aarch64 is 64-bit only: 403–423 are the time64 calls of 32-bit architectures. */
const isThirtyTwoBitOnly = (arch: SeccompArch, nr: number) => arch === 'aarch64' && nr >= 403 && nr <= 423;

describe.each(Object.keys(HEADERS) as SeccompArch[])('the %s table', (arch) => {
  const header = HEADERS[arch];
  it.runIf(existsSync(header) || process.env.CI === 'true')(`matches ${header} (skipped without linux-libc-dev)`, () => {
    const fromHeader = parse(readFileSync(header, 'utf8'));
    const ours = ARCH_TABLES[arch].numbers;
    const headerMax = Math.max(...fromHeader.keys());
    for (const [nr, names] of fromHeader) {
      if (isThirtyTwoBitOnly(arch, nr)) continue;
      const name = [...ours].find(([, n]) => n === nr)?.[0];
      expect(name !== undefined && names.has(name), `${nr}: header says ${[...names].join('/')}, table says ${name}`).toBe(true);
    }
    for (const [name, nr] of ours) {
      const inHeader = [...fromHeader].find(([, names]) => names.has(name));
      if (inHeader) expect(nr, name).toBe(inHeader[0]);
      // A name the header lacks must be newer than the header, and so pinned (uretprobe/uprobe sit in x86_64's legacy range).
      else
        expect(nr > headerMax || (arch === 'x86_64' && (name === 'uretprobe' || name === 'uprobe')), `${name} (${nr}) is neither in ${header} nor newer`).toBe(
          true,
        );
    }
  });
});

it('numbers the calls after 450 the same on both architectures', () => {
  for (const [name, nr] of ARCH_TABLES.x86_64.numbers) if (nr >= 424) expect(ARCH_TABLES.aarch64.numbers.get(name), name).toBe(nr);
});
