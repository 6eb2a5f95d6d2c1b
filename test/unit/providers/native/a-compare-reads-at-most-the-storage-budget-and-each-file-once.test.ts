/**
 * A checkpoint's (and `changes`') comparison digests every byte a changed
 * file reads as, and a file's apparent size is not bounded by the storage
 * budget: a job's 0-byte sparse file of terabytes, or many hard links to one
 * big file, held the engine hashing for as long as it took. Each view now
 * reads at most the budget, a file met again through another link is
 * digested once, and past the bound the comparison is refused as policy
 * (exit 3) naming the file. The path text a comparison handles is bounded
 * the same way: a deep tree of long names cost depth² × name length (a red
 * team's 3,000-deep tree held a checkpoint 12 minutes), and so are its
 * entries: hard links take no inode, so one file can have millions of names
 * (a second red team's 398,000 held a checkpoint 2 minutes). Runs anywhere:
 * two plain folders stand for the two overlay views.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, linkSync, mkdirSync, mkdtempSync, openSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { collectPaths, compareBudget, compareViews } from '../../../../src/providers/native/tree-compare.js';

const MiB = 1024 * 1024;

describe('comparing two views of a workspace', () => {
  let root: string;
  let before: string;
  let after: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'hs-compare-'));
    before = join(root, 'before');
    after = join(root, 'after');
    mkdirSync(before);
    mkdirSync(after);
  });
  // rm(1), not rmSync: the deep tree is past PATH_MAX from the root.
  afterEach(() => void spawnSync('rm', ['-rf', root]));

  it('refuses as policy, naming the file, a sparse file that reads as more than the budget', async () => {
    const fd = openSync(join(after, 'big.bin'), 'w');
    ftruncateSync(fd, 64 * MiB);
    closeSync(fd);
    writeFileSync(join(after, 'small.txt'), 'hello');
    const started = Date.now();
    await expect(compareViews(before, after, ['big.bin', 'small.txt'], compareBudget(4 * MiB, 4 * MiB))).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining("'big.bin'"),
    });
    expect(Date.now() - started, 'refused before reading its zeros').toBeLessThan(5_000);
  });

  it('digests a file met through several hard links once, so links to a big file stay within the budget', async () => {
    writeFileSync(join(after, 'data.bin'), Buffer.alloc(3 * MiB, 7));
    const names = ['data.bin'];
    for (let i = 0; i < 5; i++) {
      linkSync(join(after, 'data.bin'), join(after, `link-${i}.bin`));
      names.push(`link-${i}.bin`);
    }
    const delta = await compareViews(before, after, names, compareBudget(4 * MiB, 4 * MiB));
    expect(delta.changes.map((c) => c.path)).toEqual([...names].sort());
    expect(new Set(delta.after.map((e) => e.sha256)).size, 'one content, one digest').toBe(1);
    expect(delta.after.every((e) => e.size === 3 * MiB)).toBe(true);
  });

  it('reads each view within its own budget: a file in both views is digested on each side', async () => {
    writeFileSync(join(before, 'kept.bin'), Buffer.alloc(3 * MiB, 1));
    writeFileSync(join(after, 'kept.bin'), Buffer.alloc(3 * MiB, 2));
    const delta = await compareViews(before, after, ['kept.bin'], compareBudget(4 * MiB, 4 * MiB));
    expect(delta.changes).toMatchObject([{ path: 'kept.bin', kind: 'modify' }]);
  });

  it('refuses as policy a tree whose path text passes the bound, whether collected from a layer or found in a listing', async () => {
    // Deeper than PATH_MAX from the root: made one level at a time from inside.
    const made = spawnSync('python3', ['-c', "import os\nfor _ in range(40): os.mkdir('n' * 200); os.chdir('n' * 200)"], { cwd: after });
    expect(made.status, made.stderr.toString()).toBe(0);
    const candidates = new Set<string>();
    await expect(collectPaths(after, candidates, compareBudget(MiB, MiB, { maxPathBytes: 64 * 1024 }))).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('bytes of path text'),
    });
    // Found through a listing (a directory only one view has): charged as well.
    await expect(compareViews(before, after, ['n'.repeat(200)], compareBudget(MiB, MiB, { maxPathBytes: 64 * 1024 }))).rejects.toMatchObject({
      code: 'POLICY_DENIED',
    });
    // Within the bound, the same tree compares.
    const roomy = compareBudget(MiB, MiB);
    const all = new Set<string>();
    await collectPaths(after, all, roomy);
    expect((await compareViews(before, after, all, roomy)).changes).toHaveLength(40);
  });

  it('refuses as policy more entries than twice the files the two views can hold, hard links included', async () => {
    writeFileSync(join(after, 'one.txt'), 'x');
    const made = spawnSync('python3', ['-c', "import os\nfor i in range(600): os.link('one.txt', 'l%d' % i)"], { cwd: after });
    expect(made.status, made.stderr.toString()).toBe(0);
    // Views of 1 MiB each hold at most 256 files: 512 entries.
    const budget = compareBudget(MiB, MiB, { minEntries: 100 });
    const candidates = new Set<string>();
    await expect(collectPaths(after, candidates, budget)).rejects.toMatchObject({ code: 'POLICY_DENIED', message: expect.stringContaining('512 entries') });
  });
});
