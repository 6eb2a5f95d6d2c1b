/**
 * bwrap runs as the job uid and must search every directory above the
 * workspace. When the provider root sits under a 0700 directory (e.g.
 * /root/.headspace), jobs still run: the files directory is bind-mounted
 * under /run for the job uid, and remove() unmounts it — the image's own
 * mount with the storage reclaim, which finishes in the background (#20).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, waitForReclaim } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready && process.getuid?.() === 0)(`an unreachable root (needs a ready native host as root: ${readiness.reason})`, () => {
  const privateParent = mkdtempSync(join(tmpdir(), 'hs-private-')); // mkdtemp makes it 0700
  afterAll(() => rmSync(privateParent, { recursive: true, force: true }));

  it('still runs jobs, and remove unmounts what it mounted', async () => {
    const ws = await makeNativeWorkspace(() => undefined, { rootParent: privateParent });
    const { outcome, stdout } = await ws.run(['sh', '-c', 'echo hi > f && cat f']);
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toBe('hi\n');
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).toContain(ws.workspaceId);
    const removed = await ws.provider.remove(ws.workspaceId);
    // The image is unmounted by the reclaim (CI read the mount once, before it had run); nothing may stay after it.
    if (removed.reclaiming?.includes('storage')) await waitForReclaim(ws.root, ws.workspaceId);
    expect(readFileSync('/proc/self/mountinfo', 'utf8')).not.toContain(ws.workspaceId);
    await ws.dispose();
  });
});
