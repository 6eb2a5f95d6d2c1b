/**
 * A layer no chain references is removed by removeUnreachableTree (#20:
 * coreutils rm, about ten times removeTree's speed). It holds what a job
 * wrote, so the removal must be what removeTree's was: the whole tree,
 * however deep, with names that are not UTF-8, never following a link out of
 * it, and never emptying another filesystem mounted inside it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeUnreachableTree } from '../../../../src/core/files/remove-unreachable-tree.js';

const base = mkdtempSync(join(tmpdir(), 'hs-unreachable-'));
afterAll(() => {
  spawnSync('/usr/bin/umount', ['-l', join(base, 'mounted', 'inner')]);
  rmSync(base, { recursive: true, force: true });
});

/** A tree as a job could leave it: nested 1,500 deep by relative steps, 2,000 links, an odd name, and links pointing out. */
function hostileTree(root: string, outside: string): void {
  mkdirSync(root);
  const deep = `const fs = require('fs'); process.chdir(process.argv[1]); for (let i = 0; i < 1500; i++) { fs.mkdirSync('d'); process.chdir('d'); } fs.writeFileSync('bottom', 'x');`;
  const made = spawnSync(process.execPath, ['-e', deep, root]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
  mkdirSync(join(root, 'many'));
  for (let i = 0; i < 2000; i++) symlinkSync('nowhere', join(root, 'many', `l${i}`));
  writeFileSync(Buffer.concat([Buffer.from(`${root}/`), Buffer.from([0x66, 0xff, 0xfe])]), 'not utf-8');
  symlinkSync(outside, join(root, 'out-dir'));
  symlinkSync(join(outside, 'keep.txt'), join(root, 'out-file'));
}

describe('removing a tree no job can reach', () => {
  it('removes it whole and leaves what its links point at', async () => {
    const outside = join(base, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'kept');
    const layer = join(base, 'layer');
    hostileTree(layer, outside);
    await removeUnreachableTree(layer);
    expect(existsSync(layer)).toBe(false);
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('kept');
  });

  it('is content with a tree that is gone already', async () => {
    await expect(removeUnreachableTree(join(base, 'never-there'))).resolves.toBeUndefined();
  });

  it.runIf(process.getuid?.() === 0)('refuses to empty a filesystem mounted inside it', async () => {
    const layer = join(base, 'mounted');
    mkdirSync(join(layer, 'inner'), { recursive: true });
    const mounted = spawnSync('/usr/bin/mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', join(layer, 'inner')]);
    expect(mounted.status, mounted.stderr.toString()).toBe(0);
    writeFileSync(join(layer, 'inner', 'theirs.txt'), 'not ours');
    writeFileSync(join(layer, 'ours.txt'), 'ours');
    await expect(removeUnreachableTree(layer)).rejects.toThrow(/mount point/);
    expect(readFileSync(join(layer, 'inner', 'theirs.txt'), 'utf8')).toBe('not ours');
  });
});
