/**
 * A process that dies while making or removing a workspace on its own
 * filesystem leaves something doctor can name and --repair can remove: a
 * crash after the image is mounted (meta.json not yet written, or already
 * gone) leaves the loop mount and the folder holding the image; a crash
 * between mkfs and mount leaves the folder with the image only. Removing the
 * leftovers leaves no mount, no loop device and no image.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Leftover } from '../../../../src/core/provider.js';
import { loopDevicesUnder, waitForLoopRelease } from '../../../../src/providers/native/workspace-filesystem.js';
import { makeNativeWorkspace } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ownFilesystem)(`leftovers of a workspace image (needs root and loop devices: ${readiness.storageDetail})`, () => {
  it('names the loop mount and the folder of a workspace whose meta.json is gone, and removes both', async () => {
    const ws = await makeNativeWorkspace();
    const dir = join(ws.root, 'workspaces', ws.workspaceId);
    rmSync(join(dir, 'meta.json')); // as if create died just before writing it
    const found = (await ws.provider.leftovers!()).filter((l) => l.workspaceId === ws.workspaceId && l.kind !== 'cgroup');
    // Its overlay (fs/<id>) and its image's own mount (img/<id>, the layered filesystem of #14).
    expect(found.map((l) => l.kind)).toEqual(['directory', 'mount', 'mount']);
    expect(found[0]!.detail).toContain('storage image');
    expect(found[1]!.detail).toContain('layered filesystem');
    expect(found[2]!.detail).toContain('loop mount');
    for (const leftover of found) await ws.provider.removeLeftover!(leftover);
    expect(await waitForLoopRelease(ws.root, 5000)).toBe(true);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(ws.workspaceId);
    expect(existsSync(dir)).toBe(false);
    expect((await ws.provider.leftovers!()).filter((l: Leftover) => l.workspaceId === ws.workspaceId && l.kind !== 'cgroup')).toEqual([]);
    await ws.dispose();
  });

  it('names the folder of a create that died between mkfs and mount, image included', async () => {
    const ws = await makeNativeWorkspace();
    const orphan = join(ws.root, 'workspaces', 'orphan');
    mkdirSync(orphan);
    writeFileSync(join(orphan, 'storage.img'), Buffer.alloc(0));
    const found = (await ws.provider.leftovers!()).filter((l) => l.workspaceId === 'orphan');
    expect(found).toEqual([{ kind: 'directory', workspaceId: 'orphan', target: orphan, detail: expect.stringContaining('holding its storage image') }]);
    await ws.provider.removeLeftover!(found[0]!);
    expect(existsSync(orphan)).toBe(false);
    expect(loopDevicesUnder(ws.root).filter((l) => l.backingFile.includes('orphan'))).toEqual([]);
    await ws.dispose();
  });

  it('never deletes the files of a workspace that still exists', async () => {
    const ws = await makeNativeWorkspace();
    expect((await ws.run(['sh', '-c', 'echo mine > f'])).outcome.exitCode).toBe(0);
    copyFileSync('/dev/null', join(ws.root, 'workspaces', ws.workspaceId, 'not-a-leftover'));
    expect((await ws.provider.leftovers!()).filter((l) => l.workspaceId === ws.workspaceId)).toEqual([]);
    expect((await ws.run(['cat', 'f'])).stdout).toBe('mine\n');
    await ws.dispose();
  });
});
