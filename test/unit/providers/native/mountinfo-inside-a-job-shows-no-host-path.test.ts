/**
 * `/proc/self/mountinfo` shows each mount's root as a path on its source
 * filesystem. With the workspace on a filesystem of its own, /workspace's
 * root is `/` of a loop device, and the generated passwd/group/hosts come
 * from /run: no line names the provider root (HEADSPACE_HOME) or /root,
 * whether or not the job uid can reach the root. (Probe scenario
 * `proc-host-paths`.)
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { containsPath } from '../../../../src/core/probe/scenarios-isolation.js';
import { makeNativeWorkspace } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ownFilesystem)(`mountinfo inside a job (needs root and loop devices: ${readiness.storageDetail})`, () => {
  const parents: string[] = [];
  afterAll(() => parents.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  for (const reachable of [false, true]) {
    it(`names neither the provider root nor the host home when the job uid ${reachable ? 'can' : 'cannot'} reach the root`, async () => {
      const parent = mkdtempSync(join(tmpdir(), 'hs-mountinfo-'));
      parents.push(parent);
      if (reachable) chmodSync(parent, 0o755);
      const ws = await makeNativeWorkspace(() => undefined, { rootParent: parent, ...(reachable ? { rootMode: 0o755 } : {}) });
      try {
        const { outcome, stdout } = await ws.run(['cat', '/proc/self/mountinfo']);
        expect(outcome.exitCode).toBe(0);
        const lines = stdout.split('\n').filter(Boolean);
        expect(lines.length).toBeGreaterThan(5);
        for (const needle of [ws.root, parent, homedir()]) expect(lines.filter((line) => containsPath(line, needle))).toEqual([]);
        const workspace = lines.find((line) => line.split(' ')[4] === '/workspace')!;
        expect(workspace.split(' ')[3]).toBe('/');
        expect(workspace).toMatch(/ - ext4 \/dev\/loop\d+ /);
      } finally {
        await ws.dispose();
      }
    });
  }
});
