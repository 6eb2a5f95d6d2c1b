import { describe, expect, it } from 'vitest';
import { labelLimit } from '../../../../src/core/policy/label-limit.js';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { capsWithout } from './limit-caps-fixture.js';

describe('labelLimit', () => {
  it('labels a limit the provider cannot apply measured, by no one, with the provider’s reason', () => {
    const caps = capsWithout(['storage'], { reasons: { storage: 'no loop devices' } });
    expect(labelLimit('storage', defaultPolicy(), caps)).toEqual({ label: 'measured', by: 'none', reason: 'no loop devices' });
    expect(labelLimit('memory', defaultPolicy(), caps)).toEqual({ label: 'enforced', by: 'provider' });
  });

  it('gives a measured limit a reason even when the provider states none', () => {
    expect(labelLimit('pids', defaultPolicy(), capsWithout(['pids'])).reason).toBe('the test provider cannot enforce pids');
  });
});
