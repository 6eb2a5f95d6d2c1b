/**
 * Removing a workspace whose files live on a loop-mounted image unmounts it,
 * releases its loop device and deletes the image: afterwards no mount and no
 * loop device names the workspace (the overlay a job binds goes before remove
 * returns, the rest in a background reclaim). When the host itself still holds the
 * filesystem open, the unmount is lazy and removal says `unverified` for
 * storage; the device goes as soon as the last holder lets go.
 */
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loopDevicesUnder, waitForLoopRelease } from '../../../../src/providers/native/workspace-filesystem.js';
import { makeNativeWorkspace, waitForReclaim } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

function mountsNaming(text: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.includes(text));
}

describe.runIf(readiness.ownFilesystem)(`removing a workspace on its own filesystem (needs root and loop devices: ${readiness.storageDetail})`, () => {
  it('leaves no loop device, no mount and no image', async () => {
    const ws = await makeNativeWorkspace();
    expect((await ws.run(['sh', '-c', 'echo data > kept; sleep 60 & echo started'])).outcome.exitCode).toBe(0);
    expect(loopDevicesUnder(ws.root)).toHaveLength(1);
    expect(mountsNaming(ws.workspaceId)).not.toEqual([]);
    const disposition = await ws.provider.remove(ws.workspaceId);
    // Unreachable at once (no mount a job binds), reclaimed in the background (#20): reported so, not as removed.
    expect(disposition).toEqual({ removed: ['runtime'], retained: [], unverified: [], reclaiming: ['storage'] });
    expect(mountsNaming(`/fs/${ws.workspaceId}`)).toEqual([]);
    await waitForReclaim(ws.root, ws.workspaceId);
    expect(await waitForLoopRelease(ws.root, 5000)).toBe(true);
    expect(loopDevicesUnder(ws.root)).toEqual([]);
    expect(mountsNaming(ws.workspaceId)).toEqual([]);
    expect(existsSync(join(ws.root, 'workspaces', ws.workspaceId))).toBe(false);
    await ws.dispose();
  });

  it('unmounts lazily while the host holds a file open, and the device goes when it closes', async () => {
    const ws = await makeNativeWorkspace();
    expect((await ws.run(['sh', '-c', 'echo data > held'])).outcome.exitCode).toBe(0);
    // The workspace's files: the overlay at <mount base>/fs/<id> (its image is mounted at img/<id>, #14).
    const mountPoint = mountsNaming(ws.workspaceId)
      .map((line) => line.split(' ')[4]!)
      .find((path) => path.endsWith(`/fs/${ws.workspaceId}`))!;
    const fd = openSync(join(mountPoint, 'held'), 'r');
    try {
      const disposition = await ws.provider.remove(ws.workspaceId);
      expect(disposition.unverified).toEqual(['storage']);
      expect(mountsNaming(ws.workspaceId)).toEqual([]);
    } finally {
      closeSync(fd);
    }
    expect(await waitForLoopRelease(ws.root, 5000)).toBe(true);
    await ws.dispose();
  });
});
