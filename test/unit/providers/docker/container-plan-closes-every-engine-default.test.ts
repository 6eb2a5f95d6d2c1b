/**
 * The workspace container's HostConfig is the whole isolation boundary on
 * docker: every field the issue lists is written, because the engine's
 * defaults are open (a bridge network, swap, unlimited pids, a writable
 * rootfs, the default capability set).
 */
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { planContainer, planVolumeOwner } from '../../../../src/providers/docker/plan-container.js';

const input = () => ({
  workspaceId: 'w1',
  rootTag: 'abc',
  profile: 'host',
  imageRef: 'headspace/python:local',
  imageId: `sha256:${'a'.repeat(64)}`,
  policy: defaultPolicy(),
  jobUser: { uid: 600123, gid: 600124 },
  name: 'hs-abc-w1',
  volumeName: 'hs-abc-w1',
});

it('maps the budget to Memory = MemorySwap, NanoCpus and PidsLimit', () => {
  const policy = defaultPolicy();
  policy.budget.memoryBytes = 256 * 1024 * 1024;
  policy.budget.cpuLimit = 1.5;
  policy.budget.pidsLimit = 77;
  const { HostConfig } = planContainer({ ...input(), policy });
  expect(HostConfig.Memory).toBe(256 * 1024 * 1024);
  expect(HostConfig.MemorySwap).toBe(HostConfig.Memory);
  expect(HostConfig.NanoCpus).toBe(1_500_000_000);
  expect(HostConfig.PidsLimit).toBe(77);
});

it('bounds socket buffers with KernelMemoryTCP on cgroup v1 (a quarter of the budget, capped by the host share), never on v2', () => {
  const policy = defaultPolicy();
  policy.budget.memoryBytes = 128 * 1024 * 1024;
  // v1 (or an unknown version): without the field the kernel never charges socket memory to the container.
  expect(planContainer({ ...input(), policy, cgroupVersion: '1' }).HostConfig.KernelMemoryTCP).toBe(32 * 1024 * 1024);
  expect(planContainer({ ...input(), policy }).HostConfig.KernelMemoryTCP).toBe(32 * 1024 * 1024);
  // An eighth of the host's socket "no pressure" line, in whole pages, when that is less.
  expect(planContainer({ ...input(), policy, cgroupVersion: '1', hostNoPressurePages: 4000 }).HostConfig.KernelMemoryTCP).toBe(500 * 4096);
  // v2: memory.max already covers socket memory.
  expect(planContainer({ ...input(), policy, cgroupVersion: '2' }).HostConfig).not.toHaveProperty('KernelMemoryTCP');
});

it('closes the network, the capabilities, privilege gain and the root filesystem', () => {
  const plan = planContainer(input());
  expect(plan.HostConfig.NetworkMode).toBe('none');
  expect(plan.NetworkDisabled).toBe(true);
  expect(plan.HostConfig.Privileged).toBe(false);
  expect(plan.HostConfig.CapDrop).toEqual(['ALL']);
  expect(plan.HostConfig.CapAdd).toEqual([]);
  expect(plan.HostConfig.SecurityOpt).toEqual(['no-new-privileges']);
  expect(planContainer({ ...input(), seccompProfile: '{"defaultAction":"SCMP_ACT_ERRNO"}' }).HostConfig.SecurityOpt).toEqual([
    'no-new-privileges',
    'seccomp={"defaultAction":"SCMP_ACT_ERRNO"}',
  ]);
  expect(plan.HostConfig.ReadonlyRootfs).toBe(true);
  // Writable scratch only in /tmp; /dev/pts is an empty read-only tmpfs (no pseudo-terminals).
  expect(Object.keys(plan.HostConfig.Tmpfs)).toEqual(['/tmp', '/dev/pts']);
  expect(plan.HostConfig.Tmpfs['/dev/pts']).toMatch(/^ro,/);
});

it('names the job user in a label, runs its own init as another uid, and mounts only its own volume', () => {
  const plan = planContainer(input());
  // A job's kill -1 as its uid must not reach the container's own processes (#19).
  expect(plan.User).toBe('0:0');
  expect(plan.Labels['dev.headspace.job-user']).toBe('600123:600124');
  expect(plan.HostConfig.CapDrop).toEqual(['ALL']);
  expect(plan.HostConfig.CapAdd).toEqual([]);
  expect(plan.HostConfig.Binds).toEqual([]);
  expect(plan.HostConfig.Devices).toEqual([]);
  expect(plan.HostConfig.VolumesFrom).toEqual([]);
  expect(plan.HostConfig.Mounts).toEqual([{ Type: 'volume', Source: 'hs-abc-w1', Target: '/workspace', ReadOnly: false, VolumeOptions: { NoCopy: true } }]);
  expect(JSON.stringify(plan)).not.toContain('docker.sock');
});

it('makes the container from the image digest, never from the tag', () => {
  const plan = planContainer(input());
  expect(plan.Image).toBe(`sha256:${'a'.repeat(64)}`);
  expect(plan.Labels['dev.headspace.image-ref']).toBe('headspace/python:local');
});

it('refuses to plan an open network, host paths or a root job user', () => {
  const open = defaultPolicy();
  open.network = 'enabled';
  expect(() => planContainer({ ...input(), policy: open })).toThrow(RangeError);
  const paths = defaultPolicy();
  paths.hostPaths = ['/etc'];
  expect(() => planContainer({ ...input(), policy: paths })).toThrow(RangeError);
  expect(() => planContainer({ ...input(), jobUser: { uid: 0, gid: 0 } })).toThrow(RangeError);
});

it('gives the volume to the job user with CAP_CHOWN alone and no network', () => {
  const plan = planVolumeOwner({ name: 'x-own', imageId: 'sha256:b', volumeName: 'x', user: { uid: 600123, gid: 600124 }, labels: {} });
  expect(plan.HostConfig.CapDrop).toEqual(['ALL']);
  expect(plan.HostConfig.CapAdd).toEqual(['CHOWN']);
  expect(plan.HostConfig.NetworkMode).toBe('none');
  expect(plan.HostConfig.Privileged).toBe(false);
  expect([...plan.Entrypoint, ...plan.Cmd]).toEqual(['chown', '600123:600124', '/workspace']);
});
