/**
 * Fail closed: a cgroup v1 memory controller without
 * memory.kmem.tcp.limit_in_bytes (a kernel that removed it) cannot charge
 * socket buffers to a workspace, so the driver probe must not call memory
 * enforced there, and says why; with the file it does. The hierarchies are
 * plain directories standing in for the mounts (the probe only looks for
 * the file and makes `headspace/` under them).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseCgroupDriver } from '../../../../src/providers/native/choose-cgroup-driver.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function v1Mounts(withSocketLimit: boolean) {
  dir = mkdtempSync(join(tmpdir(), 'hs-v1-'));
  if (withSocketLimit) writeFileSync(join(dir, 'memory.kmem.tcp.limit_in_bytes'), '9223372036854771712\n');
  return [{ dir, version: 1 as const, controllers: ['memory', 'pids', 'cpu', 'cpuacct'] }];
}

describe('the v1 driver probe', () => {
  it('does not call memory enforced without the socket limit file, and says so', async () => {
    const choice = await chooseCgroupDriver(0, v1Mounts(false));
    expect(choice.enforces).toEqual({ memory: false, pids: true, cpu: true });
    expect(choice.details.join('\n')).toContain('socket buffers would escape the memory budget');
  });

  it('calls memory enforced with it', async () => {
    const choice = await chooseCgroupDriver(0, v1Mounts(true));
    expect(choice.enforces.memory).toBe(true);
  });
});
