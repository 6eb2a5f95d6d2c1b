/**
 * Red team (#20 pool and reclaim): a create of an id whose removed
 * workspace's storage is still being reclaimed waits for the reclaim, but
 * not forever. At the deadline it used to finish the reclaim itself beside
 * the live shell, whose `rm -rf` could then take the folder the create made
 * next. Now a reclaim still under way (its folder's lock held) at the
 * deadline is left to its shell and the caller is refused; only an
 * interrupted one (no lock held after the shell took it) is finished here.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { settleReclaim } from '../../../../src/providers/native/reclaim-storage.js';

const root = mkdtempSync(join(tmpdir(), 'hs-reclaim-race-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('settling a reclaim before a create of the same id', () => {
  it('refuses while the reclaim shell still holds the folder, and finishes an interrupted one', async () => {
    const dir = join(root, 'ws-1');
    mkdirSync(dir);
    writeFileSync(join(dir, 'reclaim.json'), JSON.stringify({ by: { pid: 1, startedAt: 0 } }));
    writeFileSync(join(dir, 'reclaim.started'), '');
    // Stands in for the reclaim shell: holds the folder's lock as it does while it works.
    const shell = spawn('/usr/bin/flock', [dir, 'sleep', '30'], { stdio: 'ignore', detached: true });
    const locked = async () => {
      for (let i = 0; i < 200; i++) {
        const held = await new Promise<boolean>((resolve) =>
          spawn('/bin/sh', ['-c', 'exec 9<"$1"; /usr/bin/flock -n 9 || exit 75', 'check', dir]).once('exit', (code) => resolve(code === 75)),
        );
        if (held) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error('the lock was never taken');
    };
    await locked();
    const mounts = { dir, fsMount: join(root, 'fs-1'), imageMount: join(root, 'img-1') };
    await expect(settleReclaim(mounts, 300)).rejects.toMatchObject({ code: 'WORKSPACE_EXISTS' });
    expect(existsSync(join(dir, 'reclaim.json'))).toBe(true); // left to its shell

    // The shell dies (flock and the sleep holding the lock with it): an interrupted reclaim.
    const gone = new Promise((resolve) => shell.once('exit', resolve));
    process.kill(-shell.pid!, 'SIGKILL');
    await gone;
    await settleReclaim(mounts, 5_000);
    expect(existsSync(dir)).toBe(false);
  }, 30_000);
});
