/**
 * Export treats the workspace's content as hostile (#10 items 5, 6): an
 * artifact whose apparent size exceeds the cap (maxBytes here; the default,
 * the workspace's storage budget, is exercised on native by the sparse-export
 * probe, since the fake counts apparent sizes against the budget) is refused as policy before a byte is written; what
 * is exported keeps its zero blocks as holes on the host; a destination
 * that is a symbolic link is never written through nor replaced; and
 * destinations under /proc, /sys and /dev are refused.
 */
import { lstatSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

const SIZE = 16 * 1024 * 1024;
let t: TestEngine;
let out: string;

beforeEach(async () => {
  t = makeTestEngine();
  out = mkdtempSync(join(tmpdir(), 'hs-export-holes-'));
  // A file that is 16 MiB apparent but 8 bytes of data: head and tail, zeros between.
  const source = join(out, 'source.bin');
  writeFileSync(source, 'head');
  truncateSync(source, SIZE - 4);
  writeFileSync(source, 'tail', { flag: 'a' });
  await t.engine.create({ workspaceId: 'holes', budget: { storageBytes: 64 * 1024 * 1024 } });
  await t.engine.put({ workspaceId: 'holes', hostPath: source, destination: 'big.bin' });
  await t.engine.declare({ workspaceId: 'holes', name: 'big.bin', purpose: 'a mostly empty file' });
  rmSync(source);
});
afterEach(() => {
  t.cleanup();
  rmSync(out, { recursive: true, force: true });
});

describe('export of hostile content', () => {
  it('keeps zero blocks as holes, so the host file allocates far less than its size', async () => {
    const to = join(out, 'big.bin');
    await t.engine.export({ workspaceId: 'holes', name: 'big.bin', to });
    const info = lstatSync(to);
    expect(info.size).toBe(SIZE);
    expect(info.blocks * 512).toBeLessThan(64 * 1024);
    const bytes = readFileSync(to);
    expect(bytes.subarray(0, 4).toString()).toBe('head');
    expect(bytes.subarray(SIZE - 4).toString()).toBe('tail');
  });

  it('refuses as policy an apparent size past maxBytes, naming the cap and the size, writing nothing', async () => {
    const refusal = t.engine.export({ workspaceId: 'holes', name: 'big.bin', to: join(out, 'big.bin'), maxBytes: 1024 * 1024 });
    await expect(refusal).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      category: 'policy_denied',
      message: expect.stringMatching(/16777216 bytes.*1048576 bytes \(export's max bytes\)/),
    });
    expect(readdirSync(out)).toEqual([]);
  });

  it('never writes through or replaces a link at the destination, even with overwrite', async () => {
    const target = join(out, 'precious');
    writeFileSync(target, 'keep me');
    const link = join(out, 'out.bin');
    symlinkSync(target, link);
    for (const overwrite of [false, true]) {
      await expect(t.engine.export({ workspaceId: 'holes', name: 'big.bin', to: link, overwrite })).rejects.toMatchObject({
        code: 'BAD_PATH',
        hint: expect.stringContaining('remove the link'),
      });
    }
    symlinkSync(join(out, 'nowhere'), join(out, 'dangling'));
    await expect(t.engine.export({ workspaceId: 'holes', name: 'big.bin', to: join(out, 'dangling'), overwrite: true })).rejects.toMatchObject({
      code: 'BAD_PATH',
    });
    expect(readFileSync(target, 'utf8')).toBe('keep me');
    expect(readlinkSync(link)).toBe(target);
    expect(readdirSync(out).sort()).toEqual(['dangling', 'out.bin', 'precious']);
  });

  it('refuses destinations under /proc, /sys and /dev, directly or through a linked folder', async () => {
    for (const to of ['/proc/self/fd/1', '/sys/kernel/x', '/dev/null']) {
      await expect(t.engine.export({ workspaceId: 'holes', name: 'big.bin', to, overwrite: true })).rejects.toMatchObject({
        code: 'BAD_PATH',
        category: 'user_error',
      });
    }
    symlinkSync('/proc/self', join(out, 'proclink'));
    await expect(t.engine.export({ workspaceId: 'holes', name: 'big.bin', to: join(out, 'proclink', 'x') })).rejects.toMatchObject({
      code: 'BAD_PATH',
      message: expect.stringContaining('under /proc'),
    });
  });
});
