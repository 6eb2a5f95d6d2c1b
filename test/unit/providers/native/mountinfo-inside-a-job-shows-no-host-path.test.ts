/**
 * `/proc/self/mountinfo` shows each mount's root as a path on its source
 * filesystem. With the workspace on a filesystem of its own, /workspace's
 * root is `/` of a loop device, the generated passwd/group/hosts are files
 * bwrap writes into the sandbox (no mount), and the exec shim runs through
 * a descriptor (no bind): no line names the provider root
 * (HEADSPACE_HOME), /root or headspace's runtime directory under /run,
 * whether or not the job uid can reach the root; the job still resolves
 * its own user. (Probe scenario `proc-host-paths`.)
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { containsPath, HEADSPACE_RUNTIME_DIR } from '../../../../src/core/probe/scenarios-isolation.js';
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
        const { outcome, stdout } = await ws.run(['sh', '-c', 'cat /proc/self/mountinfo && echo "whoami: $(id -un)" && grep -c localhost /etc/hosts']);
        expect(outcome.exitCode).toBe(0);
        const lines = stdout.split('\n').filter((line) => /^\d+ /.test(line));
        expect(lines.length).toBeGreaterThan(5);
        for (const needle of [ws.root, parent, homedir(), HEADSPACE_RUNTIME_DIR]) expect(lines.filter((line) => containsPath(line, needle))).toEqual([]);
        expect(lines.filter((line) => / \/etc\/(passwd|group|hosts) /.test(line))).toEqual([]);
        expect(stdout).toContain('whoami: agent');
        const workspace = lines.find((line) => line.split(' ')[4] === '/workspace')!;
        expect(workspace.split(' ')[3]).toBe('/');
        // The layered filesystem (#14): an overlay whose layers are named relative to the image area, never by a host path.
        expect(workspace).toMatch(/ - overlay overlay .*lowerdir=[^/,][^,]*,upperdir=[^/,]/);
      } finally {
        await ws.dispose();
      }
    });
  }
});
