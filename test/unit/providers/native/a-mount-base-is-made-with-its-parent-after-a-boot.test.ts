/**
 * The native mount base lives at /run/headspace-native/<tag>, and /run is a
 * tmpfs: after a boot /run/headspace-native is not there. The first native
 * create on a freshly booted host used to fail with "ENOENT: mkdir
 * /run/headspace-native/<tag>" (a fresh-machine CI run found it: every
 * native test failed), because only the base's own levels were made. The
 * parent is made too, searchable but not listable (0711) like the base, and
 * pruning the base leaves it for the other homes' bases. Runs anywhere: a
 * temporary folder stands in for /run.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureUnderBase, pruneMountBase } from '../../../../src/providers/native/mount-base.js';

describe('a mount base whose shared parent a boot removed', () => {
  let run: string;
  beforeEach(() => {
    run = mkdtempSync(join(tmpdir(), 'hs-run-'));
  });
  afterEach(() => rmSync(run, { recursive: true, force: true }));

  it('is made with its parent, each level with its own mode, and pruning it leaves the parent', async () => {
    const parent = join(run, 'headspace-native');
    const base = join(parent, '0123456789');
    const workspaces = join(run, 'no-workspaces');
    expect(existsSync(parent)).toBe(false);
    const leaf = await ensureUnderBase(base, 'fs', { name: 'w1', mode: 0o711 }, '/home/of/test');
    expect(leaf).toBe(join(base, 'fs', 'w1'));
    expect(statSync(parent).mode & 0o777).toBe(0o711);
    expect(statSync(base).mode & 0o777).toBe(0o711);
    expect(statSync(leaf).mode & 0o777).toBe(0o711);
    rmSync(leaf, { recursive: true });
    expect(await pruneMountBase(base, workspaces)).toBe(true);
    expect(existsSync(base)).toBe(false);
    expect(existsSync(parent), "the parent holds other homes' bases: it stays").toBe(true);
  });
});
