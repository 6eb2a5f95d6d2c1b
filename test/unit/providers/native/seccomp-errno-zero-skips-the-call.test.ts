/**
 * The filter answers sync() and syncfs() with SECCOMP_RET_ERRNO and data 0
 * (seccomp-filter-skips-sync-as-success.test.ts). That this makes the call
 * return 0 *without running* is a kernel behaviour, so it is checked on the
 * real kernel, through bwrap's own --seccomp loader, with a call whose
 * effect is visible: a filter that answers mkdir/mkdirat with errno 0 makes
 * mkdir() return 0 while no directory appears. (sync itself leaves nothing
 * a test can see reliably; the probe scenario syscall-allow-list watches
 * the host's Dirty pages for it.)
 */
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BPF_JEQ_K, jumpIf, load, OFFSET_ARCH, OFFSET_NR, ret } from '../../../../src/providers/native/seccomp-bpf.js';
import { encodeSeccompFilter, SECCOMP_RET_ALLOW, SECCOMP_RET_KILL_PROCESS, SKIP_AS_SUCCESS } from '../../../../src/providers/native/seccomp-program.js';
import { ARCH_TABLES, seccompArchOf } from '../../../../src/providers/native/syscall-tables.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const arch = seccompArchOf(process.arch);

/** Skips mkdir (where the arch has it) and mkdirat as success; allows everything else. */
function skipMkdirFilter(): Buffer {
  const table = ARCH_TABLES[arch!];
  const skipped = ['mkdir', 'mkdirat'].flatMap((name) => table.numbers.get(name) ?? []);
  return encodeSeccompFilter([
    load(OFFSET_ARCH),
    jumpIf(BPF_JEQ_K, table.auditArch, 1, 0),
    ret(SECCOMP_RET_KILL_PROCESS),
    load(OFFSET_NR),
    ...skipped.map((nr, i) => jumpIf(BPF_JEQ_K, nr, skipped.length - i, 0)),
    ret(SECCOMP_RET_ALLOW),
    ret(SKIP_AS_SUCCESS),
  ]);
}

describe.runIf(readiness.ready && arch !== undefined)(`SECCOMP_RET_ERRNO with data 0 on this kernel (needs a ready native host: ${readiness.reason})`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'hs-errno-zero-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('returns 0 from the call and skips it', () => {
    const program = join(dir, 'filter.bpf');
    writeFileSync(program, skipMkdirFilter());
    const target = join(dir, 'made');
    const fd = openSync(program, 'r');
    try {
      const script = `import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nr = libc.mkdir(${JSON.stringify(target)}.encode(), 0o755)\nprint('mkdir returned', r, 'errno', ctypes.get_errno(), 'exists', os.path.exists(${JSON.stringify(target)}))`;
      const result = spawnSync('bwrap', ['--bind', '/', '/', '--seccomp', '3', '--', '/usr/bin/python3', '-c', script], {
        stdio: ['ignore', 'pipe', 'pipe', fd],
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(result.stderr).toBe('');
      expect(result.stdout.trim()).toBe('mkdir returned 0 errno 0 exists False');
      expect(existsSync(target)).toBe(false);
    } finally {
      closeSync(fd);
    }
  });
});
