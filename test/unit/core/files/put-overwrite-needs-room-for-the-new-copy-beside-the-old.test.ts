/**
 * put --overwrite replaces a tree file by file and removes the old tree's
 * extras last, so until the copy ends the old files and the new ones both
 * take room. Its budget check once subtracted what the old tree's listing
 * said it held: the check passed, the copy ran out of room part-way and left
 * old and new files mixed (and a job's sparse files or hard links, which look
 * big and hold little, made it pass whatever the size; red team, session 11).
 * The whole source must now fit beside everything there, the old tree
 * included: refused before anything is copied, the old tree untouched.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { findingTexts } from '../../../helpers/result-packages.js';

const MiB = 1024 * 1024;
let t: TestEngine;
let src: string;
beforeEach(async () => {
  t = makeTestEngine();
  src = mkdtempSync(join(tmpdir(), 'hs-put-over-'));
  await t.engine.create({ workspaceId: 'w', budget: { storageBytes: 4 * MiB } });
});
afterEach(() => {
  t.cleanup();
  rmSync(src, { recursive: true, force: true });
});

const tree = (name: string, files: Record<string, number>): string => {
  const dir = join(src, name);
  mkdirSync(dir);
  for (const [file, size] of Object.entries(files)) writeFileSync(join(dir, file), Buffer.alloc(size, file));
  return dir;
};

describe('put --overwrite of a tree', () => {
  it('is refused before copying when the new tree does not fit beside the old, which stays as it was', async () => {
    await t.engine.put({ workspaceId: 'w', hostPath: tree('old', { 'x.bin': 2 * MiB }), destination: 'd' });
    const before = findingTexts(await t.engine.listFiles({ workspaceId: 'w' }));
    const refused = t.engine.put({ workspaceId: 'w', hostPath: tree('new', { 'a.bin': MiB + MiB / 2, 'b.bin': MiB }), destination: 'd', overwrite: true });
    await expect(refused).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('an overwrite needs room for the new copy beside the old'),
    });
    await expect(refused).rejects.toMatchObject({ hint: expect.stringContaining('remove the old d first') });
    expect(findingTexts(await t.engine.listFiles({ workspaceId: 'w' }))).toEqual(before);
  });

  it('goes ahead when both fit, and the destination then holds exactly the new tree', async () => {
    await t.engine.put({ workspaceId: 'w', hostPath: tree('old', { 'x.bin': MiB }), destination: 'd' });
    const pkg = await t.engine.put({ workspaceId: 'w', hostPath: tree('new', { 'a.bin': MiB, 'b.bin': MiB }), destination: 'd', overwrite: true });
    expect(pkg.status).toBe('success');
    expect(findingTexts(await t.engine.listFiles({ workspaceId: 'w' }))).toEqual(['d/', `d/a.bin (${MiB} bytes)`, `d/b.bin (${MiB} bytes)`]);
  });
});
