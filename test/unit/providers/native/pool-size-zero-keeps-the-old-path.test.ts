/**
 * With the pool size 0 a create formats its own image and neither takes nor
 * keeps pool images, even where a pool of this home is stocked; with the
 * default size it takes a ready image of its size, and a budget of another
 * size makes its own.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { makeNativeWorkspace, testJobUser } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

/** The ext4 volume name of a workspace's image: pool images carry the home's label, mkfs on the create path none. */
function labelOf(image: string): string {
  return execFileSync('/usr/sbin/dumpe2fs', ['-h', image], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    .split('\n')
    .find((line) => line.startsWith('Filesystem volume name:'))!
    .split(':')[1]!
    .trim();
}

/** Waits until the pool holds `n` ready images (a refill runs detached). */
async function readyImages(dir: string, n: number): Promise<string[]> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = (existsSync(dir) ? readdirSync(dir) : []).filter((name) => name.startsWith('ready-'));
    if (ready.length >= n || Date.now() > deadline) return ready;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test.runIf(readiness.ownFilesystem)('pool size 0 keeps the old path', async () => {
  const off = await makeNativeWorkspace(() => undefined, { poolSize: 0 });
  const poolDir = layoutOf(off.root).poolDir;
  try {
    expect(existsSync(poolDir)).toBe(false);
    expect(labelOf(layoutOf(off.root).imagePath(off.workspaceId))).toBe('<none>');

    // The same home with the default size: its creates stock the pool, and the next one takes an image from it.
    const on = createNativeProvider({ root: off.root });
    const label = `hs-${layoutOf(off.root).cgroupName('').replace(/-$/, '')}`;
    await on.create({ workspaceId: 'pooled-a', policy: defaultPolicy(), profile: 'host', jobUser: testJobUser() });
    expect(await readyImages(poolDir, 2)).toHaveLength(2);
    await on.create({ workspaceId: 'pooled-b', policy: defaultPolicy(), profile: 'host', jobUser: testJobUser() });
    expect(labelOf(layoutOf(off.root).imagePath('pooled-b'))).toBe(label);

    // Size 0 again: the stocked pool is left alone, the image made here.
    const stocked = await readyImages(poolDir, 2);
    await off.provider.create({ workspaceId: 'unpooled', policy: defaultPolicy(), profile: 'host', jobUser: testJobUser() });
    expect(labelOf(layoutOf(off.root).imagePath('unpooled'))).toBe('<none>');
    expect(await readyImages(poolDir, 2)).toEqual(stocked);

    // Another size: no image fits, so it makes its own.
    const small = defaultPolicy();
    small.budget.storageBytes = 256 * 1024 * 1024;
    await on.create({ workspaceId: 'other-size', policy: small, profile: 'host', jobUser: testJobUser() });
    expect(labelOf(layoutOf(off.root).imagePath('other-size'))).toBe('<none>');
    for (const id of ['pooled-a', 'pooled-b', 'unpooled', 'other-size']) await on.remove(id);
  } finally {
    await off.dispose();
  }
});
