/**
 * A checkpoint's old view lacks every directory a job made since, and the
 * comparison remembers the last path it found missing instead of trying to
 * open it again for each candidate below it (#20: with the reads made
 * synchronous, a checkpoint of 60,000 new files went from 20 s to 4.6 s).
 * Remembering must not hide anything: a sibling whose name extends the
 * missing one, a file that became a directory, a component that is a file in
 * one view, and a wide directory read over several turns of the event loop
 * are each reported as they changed. Two plain folders stand for the views.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collectPaths, compareBudget, compareViews } from '../../../../src/providers/native/tree-compare.js';

const root = mkdtempSync(join(tmpdir(), 'hs-compare-missing-'));
afterAll(() => void spawnSync('rm', ['-rf', root]));

function tree(base: string, files: Record<string, string | { link: string } | 'dir'>): void {
  mkdirSync(base);
  for (const [path, content] of Object.entries(files)) {
    const at = join(base, path);
    mkdirSync(join(at, '..'), { recursive: true });
    if (content === 'dir') mkdirSync(at, { recursive: true });
    else if (typeof content === 'string') writeFileSync(at, content);
    else symlinkSync(content.link, at);
  }
}

describe('comparing a view with one that lacks whole directories', () => {
  it('reports every entry below them, and what changed beside them', async () => {
    const wide: Record<string, string> = {};
    for (let i = 0; i < 700; i++) wide[`m/wide/f${String(i).padStart(3, '0')}`] = `w${i}`;
    const before = join(root, 'before');
    const after = join(root, 'after');
    tree(before, { 'a/x': 'old', b: 'was a file', 'ab/y': 'same', n: 'a file, not a directory', z: 'kept' });
    tree(after, {
      'a/x': 'new',
      'b/inside': 'now a directory',
      'ab/y': 'same',
      'm/d1/f1': 'one',
      'm/d1/deeper/f2': 'two',
      'm/d2/link': { link: '../../a/x' },
      ...wide,
      'mm/f': 'a sibling whose name extends m',
      'n/p': 'below what was a file',
      z: 'kept',
    });
    const candidates = new Set<string>();
    const budget = compareBudget(64 * 1024 * 1024, 64 * 1024 * 1024);
    await collectPaths(before, candidates, budget);
    await collectPaths(after, candidates, budget);
    const { changes } = await compareViews(before, after, candidates, budget);
    const seen = Object.fromEntries(changes.map((c) => [c.path, `${c.kind} ${c.type}`]));
    expect(seen).toMatchObject({
      'a/x': 'modify file',
      b: 'modify directory',
      'b/inside': 'create file',
      m: 'create directory',
      'm/d1': 'create directory',
      'm/d1/f1': 'create file',
      'm/d1/deeper': 'create directory',
      'm/d1/deeper/f2': 'create file',
      'm/d2/link': 'create symlink',
      'm/wide/f000': 'create file',
      'm/wide/f699': 'create file',
      mm: 'create directory',
      'mm/f': 'create file',
      n: 'modify directory',
      'n/p': 'create file',
    });
    expect(Object.keys(seen).filter((p) => p.startsWith('m/wide/'))).toHaveLength(700);
    // Unchanged entries are not changes.
    expect(seen).not.toHaveProperty('z');
    expect(seen).not.toHaveProperty('ab/y');
    expect(changes.find((c) => c.path === 'a/x')?.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});
