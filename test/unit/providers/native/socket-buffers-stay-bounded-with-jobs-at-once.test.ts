/**
 * With jobs at once (#12 item 8) each job runs in a child cgroup of the
 * workspace's, and cgroup v1 charges a socket's buffers only to a memory
 * cgroup whose own socket limit was set: a child without one would hold
 * socket buffers past the memory budget. So a job in a slot cgroup still
 * stops at the workspace's socket limit (a quarter of a 64 MiB budget),
 * unkilled, exactly as a job of one-at-a-time does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOCKETS_SCRIPT } from '../../../../src/core/probe/scenarios-memory.js';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const MiB = 1024 * 1024;

describe.runIf(readiness.ready)(`socket buffers with jobs at once (needs a ready native host: ${readiness.reason})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace((p) => {
      p.budget.memoryBytes = 64 * MiB;
      p.budget.concurrency = 2;
    });
  });
  afterAll(async () => ws.dispose());

  it('holds loopback TCP and UDP buffers of a job in a slot cgroup within the budget', async () => {
    const { outcome, stdout } = await ws.run(['python3', '-c', SOCKETS_SCRIPT, String(256 * MiB)]);
    const held = (proto: string) => Number(new RegExp(`^${proto}-held: (\\d+)`, 'm').exec(stdout)?.[1]);
    expect(outcome.oomKilled).toBe(false);
    expect(outcome.exitCode).toBe(0);
    expect(held('tcp')).toBeLessThanOrEqual(17 * MiB);
    expect(held('udp')).toBeLessThanOrEqual(17 * MiB);
    expect(stdout).toMatch(/^tcp-held: .*stop=limited.*EAGAIN/m);
  }, 30_000);
});
