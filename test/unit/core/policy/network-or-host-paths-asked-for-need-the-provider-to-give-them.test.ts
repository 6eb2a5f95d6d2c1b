import { describe, expect, it } from 'vitest';
import { labelLimit } from '../../../../src/core/policy/label-limit.js';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { capsWithout } from './limit-caps-fixture.js';

describe('labelLimit', () => {
  it('labels network and filesystem measured when the policy asks for what the provider cannot give', () => {
    const closed = defaultPolicy();
    const open = { ...closed, network: 'enabled' as const, hostPaths: ['/usr/share'] };
    const caps = capsWithout([]);
    expect(labelLimit('network', closed, caps).label).toBe('enforced');
    expect(labelLimit('network', open, caps).label).toBe('measured');
    expect(labelLimit('filesystem', open, caps).label).toBe('measured');
    const giving = capsWithout([], { networkAccess: true, hostPaths: true });
    expect(labelLimit('network', open, giving).label).toBe('enforced');
    expect(labelLimit('filesystem', open, giving).label).toBe('enforced');
  });
});
