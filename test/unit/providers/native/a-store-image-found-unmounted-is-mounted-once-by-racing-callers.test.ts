/**
 * A layer store's image (img/<store>) found unmounted, after a reboot, is
 * mounted by the first call that needs it. A parent and its forks each did
 * so at once, and the image was mounted twice through two loop devices, one
 * left behind after every destroy (red team round 2: 2 of 20 rounds). Now the
 * mount is made under a lock on the image file, asked again once held.
 *
 * The other caller is played by hand, holding the image's lock: a read that
 * needs the store waits, finds it mounted by then, and mounts nothing more.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdLock, makeNativeWorkspace, mountPointEnding, mountsAt } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const overlay = /\toverlay\n/.test(readFileSync('/proc/filesystems', 'utf8'));

describe.runIf(readiness.ownFilesystem && overlay)(`a store image found unmounted (needs root, loop devices and overlayfs: ${readiness.storageDetail})`, () => {
  it('is mounted once when another caller mounts it first', async () => {
    const ws = await makeNativeWorkspace();
    try {
      expect((await ws.run(['sh', '-c', 'echo kept > f'])).outcome.exitCode).toBe(0);
      const files = mountPointEnding(`/fs/${ws.workspaceId}`);
      const store = mountPointEnding(`/img/${ws.workspaceId}`);
      const image = join(ws.root, 'workspaces', ws.workspaceId, 'storage.img');
      // A reboot's state: nothing mounted.
      execFileSync('/usr/bin/umount', [files]);
      execFileSync('/usr/bin/umount', [store]);
      const release = await holdLock(image);
      const read = ws.provider.list(ws.workspaceId, '', 10);
      await new Promise((r) => setTimeout(r, 500));
      // The other caller mounts the store while it holds the image's lock, as ensureStore does.
      execFileSync('/usr/bin/mount', ['-t', 'ext4', '-o', 'nosuid,nodev,noatime', image, store]);
      await release();
      expect((await read).entries.map((e) => e.path)).toEqual(['f']);
      expect(mountsAt(store)).toHaveLength(1);
      expect(mountsAt(files)).toHaveLength(1);
    } finally {
      await ws.dispose();
    }
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(ws.workspaceId);
  });
});
