import { describe, expect, it } from 'vitest';
import { labelLimit } from '../../../../src/core/policy/label-limit.js';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { capsWithout } from './limit-caps-fixture.js';

describe('labelLimit', () => {
  it('labels what a simulated provider applies simulated, and what it cannot apply measured', () => {
    const caps = capsWithout(['cpu'], { simulated: true });
    expect(labelLimit('memory', defaultPolicy(), caps)).toEqual({ label: 'simulated', by: 'provider' });
    expect(labelLimit('cpu', defaultPolicy(), caps).label).toBe('measured');
  });
});
