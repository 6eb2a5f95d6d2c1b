/**
 * A removed workspace's folder keeps its id taken until its storage is
 * reclaimed. When that reclaim was interrupted (its shell killed while it
 * held its lock), a create of the same id finishes it first — unmounting
 * the old image and deleting the old folder — and then succeeds with a
 * fresh, empty workspace.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';

// Read once when crash-points.ts loads: set before anything importing it is (static imports would run first; this file's modules are its own).
process.env.HEADSPACE_TEST_CRASH_AT = 'remove:in-reclaim';
const { createNativeProvider } = await import('../../../../src/providers/native/native-provider.js');
const { defaultPolicy } = await import('../../../../src/core/policy/policy.js');
const { reclaimShellRunning, testJobUser } = await import('./native-fixture.js');
const { nativeReadiness } = await import('./native-readiness.js');
const readiness = await nativeReadiness();

test.runIf(readiness.ownFilesystem)('a create of a removed id finishes its interrupted reclaim first', async () => {
  const root = mkdtempSync(join(tmpdir(), 'hs-reclaim-reuse-'));
  const provider = createNativeProvider({ root, poolSize: 0 });
  const spec = { workspaceId: 'reused', policy: defaultPolicy(), profile: 'host', jobUser: testJobUser() };
  try {
    await provider.create(spec);
    const old = Buffer.from('from the first workspace');
    await provider.write('reused', 'old.txt', old, { expectedSha256: createHash('sha256').update(old).digest('hex'), overwrite: false });
    expect((await provider.remove('reused')).reclaiming).toEqual(['storage']);
    // The reclaim's shell dies once it holds its lock (the armed crash point): the journal stays, nobody works on it.
    const dir = join(root, 'workspaces', 'reused');
    for (let i = 0; i < 3000 && reclaimShellRunning(dir); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(reclaimShellRunning(dir)).toBe(false);
    expect(existsSync(join(root, 'workspaces', 'reused', 'reclaim.json'))).toBe(true);

    await provider.create(spec);
    expect(existsSync(join(root, 'workspaces', 'reused', 'reclaim.json'))).toBe(false);
    expect((await provider.list('reused', '.', 10)).entries.map((e) => e.name)).not.toContain('old.txt');
  } finally {
    delete process.env.HEADSPACE_TEST_CRASH_AT;
    // This removal's reclaim dies too (the point stays armed in this file's modules): finish it as doctor would.
    await provider.remove('reused').catch(() => undefined);
    for (let i = 0; i < 3000 && reclaimShellRunning(join(root, 'workspaces', 'reused')); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    for (const leftover of await provider.leftovers!()) await provider.removeLeftover!(leftover).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
});
