/**
 * The swarm provider's service spec is the docker provider's container plan
 * carried over (plan-service.ts): the budget, the closed rootfs, the dropped
 * capabilities, a non-root init, no network, restart condition none — and
 * every field Swarm's API 1.41 cannot carry is named with what stands in,
 * while a field planService has never seen makes it throw rather than vanish.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { planContainer, type ContainerPlan } from '../../../../src/providers/docker/plan-container.js';
import { planService, SERVICE_USER } from '../../../../src/providers/swarm/plan-service.js';

const container = (memoryBytes = 64 * 1024 * 1024, cpuLimit = 0.5, pidsLimit = 64): ContainerPlan => {
  const policy = defaultPolicy();
  policy.budget.memoryBytes = memoryBytes;
  policy.budget.cpuLimit = cpuLimit;
  policy.budget.pidsLimit = pidsLimit;
  return planContainer({
    workspaceId: 'w1',
    rootTag: 'abc',
    profile: 'host',
    imageRef: 'headspace/python:local',
    imageId: `sha256:${'a'.repeat(64)}`,
    policy,
    jobUser: { uid: 600123, gid: 600123 },
    name: 'hs-abc-w1',
    volumeName: 'hs-abc-w1',
    seccompProfile: '{}',
    cgroupVersion: '1',
  });
};
const plan = (c: ContainerPlan) => planService(c, { serviceLabels: { 'dev.headspace.workspace': 'w1' }, constraints: ['node.labels.pool==agents'] });

it('carries the budget into the task resources for any memory, cpu and pids budget', () => {
  fc.assert(
    fc.property(fc.integer({ min: 8, max: 65536 }), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 8, max: 4096 }), (mib, quarters, pids) => {
      const c = container(mib * 1024 * 1024, quarters / 4, pids);
      const { spec } = plan(c);
      expect(spec.TaskTemplate.Resources.Limits).toEqual({ MemoryBytes: c.HostConfig.Memory, NanoCPUs: c.HostConfig.NanoCpus, Pids: c.HostConfig.PidsLimit });
      expect(spec.TaskTemplate.ContainerSpec.Ulimits).toEqual(c.HostConfig.Ulimits);
    }),
    { seed: 22, numRuns: 50 },
  );
});

it('keeps the box closed: read-only root, every capability dropped, a non-root init, no network, one replica never restarted', () => {
  const { spec } = plan(container());
  const cs = spec.TaskTemplate.ContainerSpec;
  expect(cs.ReadOnly).toBe(true);
  expect(cs.CapabilityDrop).toEqual(['ALL']);
  expect(cs.CapabilityAdd).toEqual([]);
  expect(cs.User).toBe(SERVICE_USER);
  expect(cs.User.startsWith('0')).toBe(false);
  expect(cs.Init).toBe(true);
  expect(spec.TaskTemplate.Networks).toEqual([]);
  expect(spec.TaskTemplate.RestartPolicy).toEqual({ Condition: 'none', MaxAttempts: 0 });
  expect(spec.Mode).toEqual({ Replicated: { Replicas: 1 } });
  expect(spec.TaskTemplate.Placement.Constraints).toEqual(['node.labels.pool==agents']);
  // The image by id: no node ever pulls, and a moved tag changes nothing.
  expect(cs.Image).toMatch(/^sha256:/);
});

it('mounts only the workspace volume (no copy of the image content) and the two capped tmpfs', () => {
  const { spec } = plan(container());
  const mounts = spec.TaskTemplate.ContainerSpec.Mounts;
  expect(mounts.map((m) => `${m.Type}:${m.Target}`)).toEqual(['volume:/workspace', 'tmpfs:/tmp', 'tmpfs:/dev/pts']);
  expect(mounts[0]!.VolumeOptions?.NoCopy).toBe(true);
  expect(mounts[1]!.TmpfsOptions).toEqual({ SizeBytes: 16 * 1024 * 1024, Mode: 0o1777 });
  expect(mounts[2]).toMatchObject({ ReadOnly: true, TmpfsOptions: { SizeBytes: 4096, Mode: 0o755 } });
});

it('names what Swarm cannot carry, with what stands in for each', () => {
  const { notCarried } = plan(container());
  expect(Object.keys(notCarried).sort()).toEqual(['KernelMemoryTCP', 'MaskedPaths', 'MemorySwap', 'SecurityOpt']);
  for (const instead of Object.values(notCarried)) expect(instead.length).toBeGreaterThan(10);
});

it('throws on a container field it has never seen instead of dropping it', () => {
  const c = container() as ContainerPlan & { HostConfig: { NewIsolationKnob?: boolean } };
  c.HostConfig.NewIsolationKnob = true;
  expect(() => plan(c)).toThrow(/NewIsolationKnob/);
  const d = { ...container(), Healthcheck: {} } as unknown as ContainerPlan;
  expect(() => plan(d)).toThrow(/Healthcheck/);
});
