/**
 * Network access cannot be granted safely (the host network namespace also
 * exposes host loopback services), so it is refused, never ignored; host
 * paths are bound read-only at their own path but may not cover the
 * sandbox's own mounts.
 */
import { expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { assertHostPathAllowed, planBwrap } from '../../../../src/providers/native/plan-bwrap.js';
import { bwrapPlanInput } from './bwrap-plan-input.js';

const input = (patch: Partial<ReturnType<typeof defaultPolicy>>) =>
  bwrapPlanInput({ policy: { ...defaultPolicy(), ...patch }, resolvedHostPaths: { '/opt/data': '/opt/data' } });

it('refuses network access with POLICY_DENIED', () => {
  expect(() => planBwrap(input({ network: 'enabled' }))).toThrow(expect.objectContaining({ code: 'POLICY_DENIED' }));
});

it('binds a requested host path read-only at the same place', () => {
  const { args } = planBwrap(input({ hostPaths: ['/opt/data'] }));
  const at = args.indexOf('/opt/data');
  expect(args.slice(at - 1, at + 2)).toEqual(['--ro-bind', '/opt/data', '/opt/data']);
});

it('refuses host paths over the sandbox root, its system view or its workspace', () => {
  for (const bad of ['/', '/workspace', '/workspace/x', '/usr/lib', '/etc', '/proc/1', '/tmp']) {
    expect(() => assertHostPathAllowed(bad), bad).toThrow(expect.objectContaining({ code: 'POLICY_DENIED' }));
  }
  for (const bad of ['relative/path', '/opt/../etc']) expect(() => assertHostPathAllowed(bad), bad).toThrow(expect.objectContaining({ code: 'BAD_ARGUMENT' }));
  expect(() => assertHostPathAllowed('/opt/data')).not.toThrow();
});
