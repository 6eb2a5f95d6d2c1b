/**
 * A destroyed parent whose layers a fork still uses is kept as a retained
 * store, and goes when the last chain using it goes. The fork's own
 * checkpoints reference those layers too, and they sat in the fork's folder
 * until its background reclaim deleted it: destroying the last fork left the
 * parent's image mounted and on disk until doctor's repair (red team,
 * session 10). A removed workspace's folder, journalled for reclaim, no
 * longer keeps anything in use, and the mount base goes with it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { makeNativeWorkspace, testJobUser, waitForReclaim } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

const mountsNaming = (text: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.includes(text));

describe.runIf(readiness.ownFilesystem)(`a destroyed parent's retained store (needs root and loop devices: ${readiness.storageDetail})`, () => {
  it('goes with the last fork that used it, its checkpoints included, without a repair', async () => {
    const parent = await makeNativeWorkspace();
    const child = `${parent.workspaceId}-f`;
    try {
      const ops = parent.provider.snapshots!;
      expect((await parent.run(['sh', '-c', 'echo inherited > p.txt'])).outcome.exitCode).toBe(0);
      await ops.checkpoint(parent.workspaceId, 'cp-parent');
      await ops.fork(parent.workspaceId, 'cp-parent', { workspaceId: child, policy: parent.policy, profile: 'host', jobUser: testJobUser() }, 'cp-base');
      // A checkpoint of the fork: its manifest, in the fork's folder, names the parent's layers.
      await ops.checkpoint(child, 'cp-child');
      await parent.provider.remove(parent.workspaceId);
      const retained = join(parent.root, 'stores', `${parent.workspaceId}.img`);
      expect(existsSync(retained)).toBe(true);

      await parent.provider.remove(child);
      await waitForReclaim(parent.root, child);
      expect(existsSync(retained), 'the retained image is deleted').toBe(false);
      expect(mountsNaming(`/img/${parent.workspaceId}`), 'and no longer mounted').toEqual([]);
      // The mount base went with the last workspace: the store was collected before the reclaim's shell pruned the base
      // (collected after, its mount kept img/ and the base behind, empty and without their home marker).
      const base = join('/run/headspace-native', layoutOf(parent.root).cgroupName('').replace(/-$/, ''));
      expect(existsSync(base), `the mount base ${base} is gone`).toBe(false);
    } finally {
      // A failure midway leaves the fork (its own loop mount and cgroups) behind unless it is removed too.
      await parent.provider.remove(child).catch(() => undefined);
      await waitForReclaim(parent.root, child).catch(() => undefined);
      await parent.dispose();
    }
  });
});
