/**
 * The native provider itself refuses, making nothing, a workspace whose
 * storage budget is more than the host's free space can hold (a 500 GiB
 * sparse image on a disk with 79 GB free let a job fill the host's disk),
 * or whose memory, pids or cpu budget the host does not have. The engine
 * checks first; the provider checks again just before it makes the image,
 * for callers that do not go through the engine.
 */
import { existsSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { createNativeProvider } from '../../../../src/providers/native/native-provider.js';
import { testJobUser } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const GiB = 1024 ** 3;
let root: string;
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe.runIf(readiness.ready)(`native create against the host (needs a ready native host: ${readiness.reason})`, () => {
  it('refuses storage past the free space and leaves no workspace behind', async () => {
    root = mkdtempSync(join(tmpdir(), 'hs-native-capacity-'));
    const provider = createNativeProvider({ root });
    const fs = statfsSync(root);
    const policy = defaultPolicy();
    policy.budget.storageBytes = Math.ceil((fs.bavail * fs.bsize) / GiB) * GiB;
    await expect(provider.create({ workspaceId: 'too-big', policy, profile: 'host', jobUser: testJobUser() })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringMatching(/--storage-bytes .* free .* the largest accepted is/),
    });
    expect(existsSync(join(root, 'workspaces', 'too-big'))).toBe(false);
    expect(await provider.listWorkspaces()).toEqual([]);
  });

  it('declares the host memory, CPUs and task table as its capacity', async () => {
    root = mkdtempSync(join(tmpdir(), 'hs-native-capacity-'));
    const capacity = await createNativeProvider({ root }).capacity!();
    expect(capacity.memoryBytes).toBeGreaterThan(0);
    expect(capacity.cpus).toBeGreaterThanOrEqual(1);
    expect(capacity.tasks).toBeGreaterThan(0);
    expect(capacity.storage?.freeBytes).toBeGreaterThan(0);
  });
});
