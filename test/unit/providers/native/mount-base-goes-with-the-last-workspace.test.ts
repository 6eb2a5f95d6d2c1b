/**
 * The native provider's mount base under the runtime dir
 * (/run/headspace-native/<root tag>: image mount points, binds, generated
 * passwd/group/hosts) exists only while workspaces do: it stays while one
 * is left, goes with the last one, and the next create makes it again.
 * Pruning races a create in another process without a lock: it removes only
 * empty directories, and making a path restarts from the base when a level
 * vanished, so the create always ends with its path, each level with its
 * own mode.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { layoutOf } from '../../../../src/providers/native/layout.js';
import { ensureUnderBase, pruneMountBase } from '../../../../src/providers/native/mount-base.js';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';
import { testJobUser, waitForReclaim } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const scratch = mkdtempSync(join(tmpdir(), 'hs-mount-base-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('pruning the mount base against a concurrent create', () => {
  it('removes only empty directories and leaves a non-empty base alone', async () => {
    const base = join(scratch, 'busy');
    const workspaces = join(scratch, 'no-workspaces');
    await ensureUnderBase(base, 'fs', { name: 'ws-1', mode: 0o711 });
    expect(await pruneMountBase(base, workspaces)).toBe(false);
    expect(existsSync(join(base, 'fs', 'ws-1'))).toBe(true);
    mkdirSync(join(workspaces, 'ws-2'), { recursive: true });
    rmSync(join(base, 'fs', 'ws-1'), { recursive: true });
    expect(await pruneMountBase(base, workspaces)).toBe(false); // a workspace folder is left: keep it
    expect(existsSync(base)).toBe(true);
    rmSync(join(workspaces, 'ws-2'), { recursive: true });
    expect(await pruneMountBase(base, workspaces)).toBe(true);
    expect(existsSync(base)).toBe(false);
  });

  it('never fails a create racing it, and the create ends with every level at its own mode', async () => {
    const workspaces = join(scratch, 'none');
    for (let i = 0; i < 200; i++) {
      const base = join(scratch, `race-${i}`);
      await ensureUnderBase(base, 'runtime');
      const [made] = await Promise.all([ensureUnderBase(base, 'ws', { name: 'ws-1', mode: 0o700 }), pruneMountBase(base, workspaces)]);
      expect(made).toBe(join(base, 'ws', 'ws-1'));
      expect(statSync(base).mode & 0o777).toBe(0o711);
      expect(statSync(join(base, 'ws')).mode & 0o777).toBe(0o711);
      expect(statSync(made).mode & 0o777).toBe(0o700);
    }
  });
});

describe.runIf(readiness.ready && process.getuid?.() === 0)(`the native mount base (needs a ready native host as root: ${readiness.reason})`, () => {
  it('stays while a workspace is left, goes with the last one, and comes back with the next create', async () => {
    const root = mkdtempSync(join(scratch, 'root-'));
    const provider = createNativeProvider({ root });
    const base = join('/run/headspace-native', layoutOf(root).cgroupName('').replace(/-$/, ''));
    const ids = ['mb-a', 'mb-b', 'mb-c'].map((id) => `${id}-${randomBytes(3).toString('hex')}`);
    const make = (id: string) => provider.create({ workspaceId: id, policy: defaultPolicy(), profile: 'host', jobUser: testJobUser() });
    const runs = async (id: string) =>
      (
        await provider.run({
          workspaceId: id,
          jobId: `job-${randomBytes(4).toString('hex')}`,
          argv: ['grep', '-c', 'agent', '/etc/passwd'],
          env: {},
          policy: defaultPolicy(),
          onOutput: () => undefined,
          signal: new AbortController().signal,
        })
      ).exitCode;
    try {
      await make(ids[0]!);
      await make(ids[1]!);
      expect(await runs(ids[0]!)).toBe(0);
      expect(existsSync(base)).toBe(true);
      await provider.remove(ids[0]!);
      expect(existsSync(base)).toBe(true);
      expect(await runs(ids[1]!)).toBe(0);
      await provider.remove(ids[1]!);
      // The last one's storage is reclaimed in the background, and the base goes with it (#20).
      await waitForReclaim(root, ids[1]!);
      expect(existsSync(base)).toBe(false);
      // The same provider instance (a long-lived MCP server, say) makes it again.
      await make(ids[2]!);
      expect(statSync(base).mode & 0o777).toBe(0o711);
      expect(await runs(ids[2]!)).toBe(0);
      await provider.remove(ids[2]!);
      await waitForReclaim(root, ids[2]!);
      expect(existsSync(base)).toBe(false);
    } finally {
      for (const id of ids) await provider.remove(id).catch(() => undefined);
    }
  });
});
