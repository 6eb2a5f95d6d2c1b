/**
 * A job cannot hold more in socket buffers than its memory budget allows
 * (second red team, item 1): loopback TCP and UDP buffers it never reads stop
 * at the socket limit (a quarter of a 64 MiB budget), the job is not killed
 * for it (a non-blocking send gets EAGAIN), and it ends normally. The same
 * holds for a job of a workspace running jobs at once (#12 item 8), which
 * runs in a child cgroup of the workspace's: cgroup v1 charges socket
 * buffers only in a memory cgroup whose own socket limit was set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOCKETS_SCRIPT } from '../../../../src/core/probe/scenarios-memory.js';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const MiB = 1024 * 1024;

describe.runIf(readiness.ready).each([1, 2])(`socket buffers with %i job(s) at once (needs a ready native host: ${readiness.reason})`, (concurrency) => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace((p) => {
      p.budget.memoryBytes = 64 * MiB;
      p.budget.concurrency = concurrency;
    });
  });
  afterAll(async () => ws.dispose());

  it('holds loopback TCP and UDP buffers within the budget without killing the job', async () => {
    const { outcome, stdout } = await ws.run(['python3', '-c', SOCKETS_SCRIPT, String(256 * MiB)]);
    const held = (proto: string) => Number(new RegExp(`^${proto}-held: (\\d+)`, 'm').exec(stdout)?.[1]);
    expect(outcome.oomKilled).toBe(false);
    expect(outcome.exitCode).toBe(0);
    // 16 MiB of socket limit, plus what one socket may be over by when the charge fails (a few skbs).
    expect(held('tcp')).toBeLessThanOrEqual(17 * MiB);
    expect(held('udp')).toBeLessThanOrEqual(17 * MiB);
    expect(stdout).toMatch(/^tcp-held: .*stop=limited.*EAGAIN/m);
  }, 30_000);
});
