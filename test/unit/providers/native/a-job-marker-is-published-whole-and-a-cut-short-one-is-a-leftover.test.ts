/**
 * A job marker (workspaces/<id>/job.json) is published whole: written to the
 * process's own temporary and linked into place. A CI crash-injection trial
 * killed the CLI between the old O_EXCL create and its write, leaving an
 * empty job.json that doctor could neither parse nor name, so its repair
 * left it behind. Whatever a kill leaves now is a leftover doctor names and
 * removes: a marker's temporary of a dead writer, and an unreadable marker
 * (an older version's) once no writer can still be busy with it. Runs
 * anywhere: it drives the sweeper on a plain folder, no sandbox needed.
 */
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireJobSlot, readJobMarker } from '../../../../src/providers/native/job-marker.js';
import { nativeLeftovers } from '../../../../src/providers/native/leftovers.js';
import { layoutOf, type Layout } from '../../../../src/providers/native/layout.js';

/** A pid no process has (pid_max is at most 2^22). */
const DEAD_PID = 2 ** 22 + 7;

describe('a native job marker', () => {
  let root: string;
  let layout: Layout;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'hs-marker-'));
    layout = layoutOf(root);
    dir = layout.workspaceDir('w1');
    mkdirSync(dir, { recursive: true });
    writeFileSync(layout.metaPath('w1'), '{}');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const sweeper = () => nativeLeftovers({ layout, mountBase: join(root, 'no-mounts'), driver: async () => undefined, killTimeoutMs: 1000 });
  const age = (path: string) => utimesSync(path, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

  it('is readable the moment it exists, and its writer leaves no temporary behind', async () => {
    expect(await acquireJobSlot(dir, 'w1', 'job-one', 2, () => undefined)).toBe(0);
    expect(await acquireJobSlot(dir, 'w1', 'job-two', 2, () => undefined)).toBe(1);
    await expect(acquireJobSlot(dir, 'w1', 'job-three', 2, () => undefined)).rejects.toMatchObject({ code: 'WORKSPACE_BUSY' });
    expect(readdirSync(dir).sort()).toEqual(['job-1.json', 'job.json', 'meta.json']);
    expect((await readJobMarker(join(dir, 'job.json')))?.jobId).toBe('job-one');
    expect((await readJobMarker(join(dir, 'job-1.json')))?.jobId).toBe('job-two');
  });

  it("that was cut short is a leftover once no writer can still be at it, and doctor's removal takes it", async () => {
    const marker = join(dir, 'job.json');
    writeFileSync(marker, '');
    expect(await sweeper().list(), 'a marker being written this instant is left alone').toEqual([]);
    age(marker);
    const found = await sweeper().list();
    expect(found).toMatchObject([{ kind: 'file', workspaceId: 'w1', target: marker }]);
    expect(found[0]!.detail).toContain('unreadable job marker');
    await sweeper().remove(found[0]!);
    expect(existsSync(marker)).toBe(false);
    expect(await acquireJobSlot(dir, 'w1', 'job-after', 1, () => undefined)).toBe(0);
  });

  it("temporary, or a stale marker taken aside, is a leftover only once its writer's process is gone", async () => {
    const mine = join(dir, `job.json.${process.pid}.tmp`);
    const dead = join(dir, `job.json.${DEAD_PID}.tmp`);
    const takenAside = join(dir, `job-1.json.${DEAD_PID}.stale-0a1b2c3d`);
    for (const file of [mine, dead, takenAside]) writeFileSync(file, '{}');
    const found = await sweeper().list();
    expect(found.map((l) => l.target).sort()).toEqual([dead, takenAside].sort());
    for (const leftover of found) await sweeper().remove(leftover);
    expect(existsSync(dead) || existsSync(takenAside)).toBe(false);
    expect(existsSync(mine), "a live writer's temporary is kept").toBe(true);
  });
});
