/**
 * A swarm workspace's service only anchors it (plan-service.ts): one replica
 * never restarted, placed within the operator's constraints, reserving the
 * workspace's memory so Swarm places it only where there is room,
 * holding the workspace volume on its node — and itself closed and tiny: no
 * network, read-only root, every capability dropped, a non-root uid, the
 * image by id.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { ANCHOR_LIMITS, ANCHOR_USER, planAnchor } from '../../../../src/providers/swarm/plan-service.js';

const IMAGE = `sha256:${'a'.repeat(64)}`;
const plan = (memoryBytes = 64 * 1024 * 1024, cpuLimit = 0.5) => {
  const policy = defaultPolicy();
  policy.budget.memoryBytes = memoryBytes;
  policy.budget.cpuLimit = cpuLimit;
  return planAnchor({ name: 'hs-abc-w1', imageId: IMAGE, policy, labels: { 'dev.headspace.workspace': 'w1' }, constraints: ['node.labels.pool==agents'] });
};

it('reserves the memory budget (cpu is a ceiling, never reserved) for any budget, and limits the anchor itself to its own small bounds', () => {
  fc.assert(
    fc.property(fc.integer({ min: 8, max: 65536 }), fc.integer({ min: 1, max: 64 }), (mib, quarters) => {
      const { Resources } = plan(mib * 1024 * 1024, quarters / 4).TaskTemplate;
      expect(Resources.Reservations).toEqual({ MemoryBytes: mib * 1024 * 1024 });
      expect(Resources.Limits).toEqual(ANCHOR_LIMITS);
    }),
    { seed: 22, numRuns: 50 },
  );
});

it('is one replica that is never restarted, placed within the given constraints', () => {
  const spec = plan();
  expect(spec.Mode).toEqual({ Replicated: { Replicas: 1 } });
  expect(spec.TaskTemplate.RestartPolicy).toEqual({ Condition: 'none', MaxAttempts: 0 });
  expect(spec.TaskTemplate.Placement.Constraints).toEqual(['node.labels.pool==agents']);
});

it('keeps the anchor closed: no network, read-only root, every capability dropped, a non-root uid, the image by id', () => {
  const cs = plan().TaskTemplate.ContainerSpec;
  expect(plan().TaskTemplate.Networks).toEqual([]);
  expect(cs.ReadOnly).toBe(true);
  expect(cs.CapabilityDrop).toEqual(['ALL']);
  expect(cs.User).toBe(ANCHOR_USER);
  expect(cs.User.split(':').map(Number)).not.toContain(0);
  expect(cs.Image).toBe(IMAGE);
  expect(() => planAnchor({ name: 'x', imageId: 'headspace/python:local', policy: defaultPolicy(), labels: {}, constraints: [] })).toThrow(/by id/);
});

it('holds the workspace volume of its own name read-only, without copying the image into it, and carries the labels', () => {
  const spec = plan();
  expect(spec.TaskTemplate.ContainerSpec.Mounts).toEqual([
    { Type: 'volume', Source: 'hs-abc-w1', Target: '/workspace', ReadOnly: true, VolumeOptions: { NoCopy: true, Labels: { 'dev.headspace.workspace': 'w1' } } },
  ]);
  expect(spec.Labels).toEqual({ 'dev.headspace.workspace': 'w1' });
});
