/**
 * Where a workspace cannot have a filesystem of its own (not root, no loop
 * devices, no mkfs.ext4, or the provider told so), its files are a host
 * directory: the storage budget is measured, not enforced, and that is said
 * in capabilities().reasons.storage and in the probe's storage-quota check.
 * The job's mountinfo then still shows the host path (what probe reports).
 */
import { describe, expect, it } from 'vitest';
import { makeNativeWorkspace } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready)(`the host-directory fallback (needs a ready native host: ${readiness.reason})`, () => {
  it('says storage is measured, not enforced, and why, and the probe still finds the host path', async () => {
    const ws = await makeNativeWorkspace(() => undefined, { storage: 'host-directory' });
    try {
      const caps = await ws.provider.capabilities();
      expect(caps.enforces.storage).toBe(false);
      expect(caps.reasons.storage).toMatch(/^measured, not enforced: per-workspace filesystems turned off/);
      expect(caps.reasons.storage).toContain('/proc/self/mountinfo');
      expect(caps.layers).not.toContain('loop-ext4');
      const probe = await ws.provider.probe();
      expect(probe.ready).toBe(true);
      expect(probe.checks.find((c) => c.name === 'storage-quota')).toMatchObject({ ok: true, detail: expect.stringMatching(/^measured, not enforced/) });
      const { stdout } = await ws.run(['sh', '-c', 'echo abc > f; grep " /workspace " /proc/self/mountinfo']);
      expect(stdout).toContain(`/workspaces/${ws.workspaceId}/files /workspace `);
      expect((await ws.provider.inspect(ws.workspaceId)).storageBytes).toBe(4);
    } finally {
      await ws.dispose();
    }
  });
});
