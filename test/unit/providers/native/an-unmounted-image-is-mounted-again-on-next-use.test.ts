/**
 * Mounts do not survive a host reboot, images do. A workspace whose image is
 * not mounted (reboot, or a removal cut short) is mounted again by the next
 * call that touches its files, so it never shows the empty directory
 * underneath as if its files were lost.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeNativeWorkspace } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ownFilesystem)(`an unmounted image (needs root and loop devices: ${readiness.storageDetail})`, () => {
  it('is mounted again by the next read, and jobs see the same files', async () => {
    const ws = await makeNativeWorkspace();
    try {
      expect((await ws.run(['sh', '-c', 'echo persisted > f'])).outcome.exitCode).toBe(0);
      // As a reboot leaves it: none of the workspace's mounts, the merged view on top first. Unmounting the image alone,
      // under a live overlay, left a state no host reaches, and its mount base behind after the removal (one per run).
      const mountPoints = readFileSync('/proc/self/mountinfo', 'utf8')
        .split('\n')
        .filter((l) => l.includes(ws.workspaceId))
        .map((l) => l.split(' ')[4]!)
        .reverse();
      expect(mountPoints.length).toBeGreaterThan(0);
      for (const mountPoint of mountPoints) execFileSync('/usr/bin/umount', [mountPoint]);
      const list = await ws.provider.list(ws.workspaceId, '', 10);
      expect(list.entries.map((e) => e.path)).toEqual(['f']);
      expect((await ws.run(['cat', 'f'])).stdout).toBe('persisted\n');
    } finally {
      await ws.dispose();
    }
  });
});
