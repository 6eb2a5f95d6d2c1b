/**
 * put sources and export destinations are any host path the user names,
 * except the kernel's pseudo filesystems (#10 item 6): /proc, /sys and /dev
 * are refused with exit 1, whether named directly or reached through a
 * linked folder; a look-alike name is not.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refuseReservedHostPath, reservedRootOf } from '../../../../src/core/files/host-path-guard.js';
import { makeTestEngine } from '../../../helpers/engine.js';

const scratch = mkdtempSync(join(tmpdir(), 'hs-reserved-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('reserved host paths', () => {
  it('matches whole path components only', () => {
    expect(reservedRootOf('/proc')).toBe('/proc');
    expect(reservedRootOf('/proc/self/environ')).toBe('/proc');
    expect(reservedRootOf('/sys/kernel')).toBe('/sys');
    expect(reservedRootOf('/dev/zero')).toBe('/dev');
    expect(reservedRootOf('/processing/data')).toBeUndefined();
    expect(reservedRootOf('/home/dev/x')).toBeUndefined();
  });

  it('refuses a path that reaches /proc through a linked folder', () => {
    symlinkSync('/proc/self', join(scratch, 'me'));
    expect(() => refuseReservedHostPath(join(scratch, 'me', 'environ'), 'put source')).toThrow(expect.objectContaining({ code: 'BAD_PATH' }) as Error);
    expect(() => refuseReservedHostPath(join(scratch, 'plain.txt'), 'put source')).not.toThrow();
  });

  it('refuses put from /proc and /dev with a user error, copying nothing', async () => {
    const t = makeTestEngine();
    try {
      await t.engine.create({ workspaceId: 'res' });
      for (const hostPath of ['/proc/self/environ', '/dev/zero', '/sys/kernel']) {
        await expect(t.engine.put({ workspaceId: 'res', hostPath, destination: 'x' })).rejects.toMatchObject({ code: 'BAD_PATH', category: 'user_error' });
      }
    } finally {
      t.cleanup();
    }
  });
});
