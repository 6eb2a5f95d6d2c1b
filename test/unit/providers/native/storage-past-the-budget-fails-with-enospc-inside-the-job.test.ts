/**
 * With a filesystem of its own per workspace, the storage budget is a hard
 * limit: a job that writes past it gets ENOSPC from the kernel inside the
 * sandbox, and what it makes of that is its own business — here it exits 3,
 * and the outcome is that plain exit status (no signal, no OOM, nothing the
 * provider made up). The host only ever holds the image's allocated blocks,
 * at most the budget, and the workspace stays usable once space is freed.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeNativeWorkspace, type NativeFixture } from './native-fixture.js';
import { nativeReadiness } from './native-readiness.js';

const readiness = await nativeReadiness();
const BUDGET = 8 * 1024 * 1024;

const FILL = `import errno, sys
n = 0
try:
    with open('/workspace/big', 'wb') as f:
        while n < ${4 * BUDGET}:
            f.write(b'\\x01' * (1 << 20)); f.flush(); n += 1 << 20
except OSError as e:
    print('error', errno.errorcode.get(e.errno, e.errno), 'after', n, flush=True)
    sys.exit(3)
print('no error after', n)`;

describe.runIf(readiness.ownFilesystem)(`a storage budget on its own filesystem (needs root and loop devices: ${readiness.storageDetail})`, () => {
  let ws: NativeFixture;
  beforeAll(async () => {
    ws = await makeNativeWorkspace((p) => {
      p.budget.storageBytes = BUDGET;
    });
  });
  afterAll(async () => ws.dispose());

  it('is declared enforced', async () => {
    const caps = await ws.provider.capabilities();
    expect(caps.enforces.storage).toBe(true);
    expect(caps.reasons.storage).toBeUndefined();
    expect(caps.layers).toContain('loop-ext4');
  });

  it('fails a write past it with ENOSPC inside the job, which then ends with its own exit status', async () => {
    const { outcome, stdout } = await ws.run(['python3', '-c', FILL]);
    expect(stdout).toMatch(/^error ENOSPC after \d+/);
    const written = Number(/after (\d+)/.exec(stdout)![1]);
    expect(written).toBeLessThanOrEqual(BUDGET);
    expect(outcome).toMatchObject({ exitCode: 3, signal: null, oomKilled: false, stopped: false, aborted: false });
  });

  it('leaves the host holding no more than the budget, and reports usage within it', async () => {
    const image = statSync(join(ws.root, 'workspaces', ws.workspaceId, 'storage.img'));
    expect(image.size).toBe(BUDGET); // sparse: its apparent size is the budget…
    expect(image.blocks * 512).toBeLessThanOrEqual(BUDGET); // …and it never allocates past it
    const view = await ws.provider.inspect(ws.workspaceId);
    expect(view.storageBytes).toBeGreaterThan(BUDGET / 2);
    expect(view.storageBytes).toBeLessThanOrEqual(BUDGET);
  });

  it('is usable again once the job frees space', async () => {
    const { outcome, stdout } = await ws.run(['sh', '-c', 'rm big && echo small > small && cat small']);
    expect(outcome.exitCode).toBe(0);
    expect(stdout).toBe('small\n');
    expect((await ws.provider.inspect(ws.workspaceId)).storageBytes).toBeLessThan(64 * 1024);
  });
});
