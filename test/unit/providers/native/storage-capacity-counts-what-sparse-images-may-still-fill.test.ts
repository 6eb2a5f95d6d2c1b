/**
 * Sparse images reserve nothing on the host, so the native provider counts
 * what each image may still grow by (apparent size less allocated blocks)
 * as promised: create admits a new budget only within the free space left
 * after those promises, and a job is not started while the host's free
 * space is below its own workspace's remaining budget (HOST_NO_SPACE).
 * Real files on the host's own filesystem; nothing is filled.
 */
import { mkdirSync, mkdtempSync, rmSync, statfsSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertRoomForJob, readStaticCapacity, storageCapacity } from '../../../../src/providers/native/host-capacity.js';

const MiB = 1024 * 1024;
let dir: string;
const image = (id: string) => join(dir, id, 'storage.img');
function makeImage(id: string, apparent: number, written = 0): void {
  mkdirSync(join(dir, id));
  writeFileSync(image(id), Buffer.alloc(written, 1));
  truncateSync(image(id), apparent);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hs-capacity-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('storage capacity', () => {
  it('counts each image by what it may still fill, not by its size or what it holds', async () => {
    makeImage('a', 64 * MiB);
    makeImage('b', 8 * MiB, 8 * MiB);
    const storage = await storageCapacity(dir, image);
    expect(storage.committedBytes).toBe(64 * MiB);
    const fs = statfsSync(dir);
    expect(Math.abs(storage.freeBytes - fs.bavail * fs.bsize)).toBeLessThan(64 * MiB);
    expect(storage.totalBytes).toBe(fs.blocks * fs.bsize);
  });

  it('measures the nearest existing directory when the workspaces directory is not made yet', async () => {
    const storage = await storageCapacity(join(dir, 'not', 'yet'), image);
    expect(storage).toMatchObject({ path: dir, committedBytes: 0 });
  });

  it('refuses to start a job whose workspace could outgrow the host free space', async () => {
    const fs = statfsSync(dir);
    makeImage('huge', fs.bavail * fs.bsize + 1024 * MiB);
    await expect(assertRoomForJob('huge', image('huge'))).rejects.toMatchObject({
      code: 'HOST_NO_SPACE',
      category: 'environment_error',
      message: expect.stringContaining('the job is not started'),
    });
  });

  it('starts a job whose remaining budget fits', async () => {
    makeImage('small', 16 * MiB, MiB);
    await expect(assertRoomForJob('small', image('small'))).resolves.toBeUndefined();
  });

  it('reads memory, CPUs and the task table of this host', () => {
    const facts = readStaticCapacity();
    expect(facts.memoryBytes).toBeGreaterThan(64 * MiB);
    expect(facts.cpus).toBeGreaterThanOrEqual(1);
    expect(facts.tasks).toBeGreaterThan(100);
  });
});
