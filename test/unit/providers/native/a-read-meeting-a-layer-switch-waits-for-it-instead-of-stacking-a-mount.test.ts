/**
 * A layer switch (checkpoint, restore) unmounts a workspace's overlay and
 * mounts the new stack. A call that met the gap (inspect, doctor, a read)
 * mounted the old stack itself, the switch then mounted over it, and the
 * lower overlay (with its loop device) stayed mounted after destroy (red
 * team, session 13: 1 of 20 checkpoints beside an inspect loop). Now a call
 * that finds the files unmounted mounts them only under the workspace's
 * mount lock, which the switch holds from its unmount to its mount.
 *
 * The switch is played here by hand, holding the same lock: unmount, let a
 * read start, mount the same stack again, release. One mount must be left.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdLock, makeNativeWorkspace, mountsAt } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const overlay = /\toverlay\n/.test(readFileSync('/proc/filesystems', 'utf8'));

describe.runIf(readiness.ownFilesystem && overlay)(`a read during a layer switch (needs root, loop devices and overlayfs: ${readiness.storageDetail})`, () => {
  it('waits for the switch and leaves one mount, not two stacked', async () => {
    const ws = await makeNativeWorkspace();
    try {
      expect((await ws.run(['sh', '-c', 'echo kept > f'])).outcome.exitCode).toBe(0);
      const line = readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .find((l) => l.split(' ')[4]?.endsWith(`/fs/${ws.workspaceId}`))!;
      const target = line.split(' ')[4]!;
      const options = line.split(' - overlay overlay ')[1]!.replace(/^rw,/, '');
      const imgArea = join(dirname(dirname(target)), 'img');
      const release = await holdLock(join(ws.root, 'workspaces', ws.workspaceId, 'mount.lock'));
      execFileSync('/usr/bin/umount', [target]);
      // The read meets the gap: unmounted, the switch not done.
      const read = ws.provider.list(ws.workspaceId, '', 10);
      await new Promise((r) => setTimeout(r, 500));
      execFileSync('/usr/bin/mount', ['-t', 'overlay', 'overlay', '-o', options, target], { cwd: imgArea });
      await release();
      expect((await read).entries.map((e) => e.path)).toEqual(['f']);
      expect(mountsAt(target)).toHaveLength(1);
    } finally {
      await ws.dispose();
    }
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(ws.workspaceId);
  });
});
