/**
 * Cgroup controllers are found from /proc/self/mountinfo, never assumed:
 * separate or co-mounted v1 controllers, and the v2 hierarchy, on hosts
 * laid out like this project's VMs (hybrid) and like a systemd laptop (v2 only).
 */
import { expect, it } from 'vitest';
import { parseCgroupMounts } from '../../../../src/providers/native/cgroup-fs.js';
import { v1ControllerDirs } from '../../../../src/providers/native/cgroup-v1.js';

const HYBRID = [
  '31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '32 30 0:29 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '36 30 0:33 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer',
  '38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '39 30 0:36 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');

it('finds each v1 controller and the v2 hierarchy on a hybrid host', () => {
  const mounts = parseCgroupMounts(HYBRID);
  expect(mounts.find((m) => m.version === 2)?.dir).toBe('/sys/fs/cgroup/unified');
  expect(v1ControllerDirs(mounts)).toEqual({
    memory: '/sys/fs/cgroup/memory',
    pids: '/sys/fs/cgroup/pids',
    cpu: '/sys/fs/cgroup/cpu',
    cpuacct: '/sys/fs/cgroup/cpuacct',
    freezer: '/sys/fs/cgroup/freezer',
  });
});

it('serves cpu and cpuacct from one co-mounted hierarchy', () => {
  const mounts = parseCgroupMounts('31 30 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct');
  const dirs = v1ControllerDirs(mounts);
  expect(dirs.cpu).toBe('/sys/fs/cgroup/cpu,cpuacct');
  expect(dirs.cpuacct).toBe(dirs.cpu);
});

it('sees no v1 controllers on a v2-only host', () => {
  const mounts = parseCgroupMounts('29 22 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate');
  expect(v1ControllerDirs(mounts)).toEqual({});
  expect(mounts).toEqual([{ dir: '/sys/fs/cgroup', version: 2, controllers: [] }]);
});
