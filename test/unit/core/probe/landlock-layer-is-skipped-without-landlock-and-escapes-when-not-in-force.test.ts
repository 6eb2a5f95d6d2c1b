/**
 * landlock-layer: on a kernel with Landlock the job must be refused what
 * only Landlock refuses (writing its own /proc entries; signalling the
 * sandbox init on ABI >= 6). A kernel without Landlock makes it skipped,
 * never contained.
 */
import { describe, expect, it } from 'vitest';
import { landlockLayer } from '../../../../src/core/probe/scenarios-descriptors.js';
import { whyNotApplicable } from '../../../../src/core/probe/run-probe.js';
import { capsWithout } from '../policy/limit-caps-fixture.js';
import { job } from './facts.js';

describe('landlock-layer', () => {
  it('is contained when both attempts are refused', () => {
    const out = 'landlock-abi: 7 \nrefused: write /proc/self/comm Permission denied\nrefused: signal to pid 1 Operation not permitted\nprobe-done\n';
    expect(landlockLayer.judge(job(out), {})).toMatchObject({ verdict: 'contained', evidence: expect.stringContaining('ABI 7') });
  });

  it('escapes when Landlock is available but an attempt went through', () => {
    const out = 'landlock-abi: 7 \nreached: write /proc/self/comm\nrefused: signal to pid 1 Operation not permitted\nprobe-done\n';
    expect(landlockLayer.judge(job(out), {})).toMatchObject({ verdict: 'escaped', evidence: expect.stringContaining('/proc/self/comm') });
  });

  it('is skipped when the kernel offers no Landlock', () => {
    const out = 'landlock-abi: 0 EOPNOTSUPP\nreached: write /proc/self/comm\nprobe-done\n';
    expect(landlockLayer.judge(job(out), {}).verdict).toBe('skipped');
  });
});

describe('a scenario testing an isolation layer', () => {
  it('is skipped, with the reason, on a provider that does not declare the layer (docker: no Landlock)', () => {
    const docker = capsWithout(['storage'], { provider: 'docker', layers: ['namespaces', 'seccomp', 'cap-drop', 'cgroup-v1'] });
    expect(landlockLayer.requiresLayers).toEqual(['landlock']);
    expect(whyNotApplicable(landlockLayer, 'docker', docker)).toBe(
      'the docker provider has no landlock layer, which this scenario tests (its layers: namespaces, seccomp, cap-drop, cgroup-v1)',
    );
  });

  it('runs on a provider that declares it', () => {
    expect(whyNotApplicable(landlockLayer, 'native', capsWithout([], { layers: ['namespaces', 'seccomp', 'landlock'] }))).toBeUndefined();
  });
});
