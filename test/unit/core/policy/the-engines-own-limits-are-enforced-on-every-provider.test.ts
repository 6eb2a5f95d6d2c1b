import { describe, expect, it } from 'vitest';
import { labelLimit, measuredByDefault } from '../../../../src/core/policy/label-limit.js';
import { defaultPolicy, ENGINE_ENFORCED_LIMITS, LIMIT_NAMES } from '../../../../src/core/policy/policy.js';
import { capsWithout } from './limit-caps-fixture.js';

describe('labelLimit', () => {
  it('labels wall clock, output and concurrency enforced by the engine even when the provider declares none of them', () => {
    const caps = capsWithout([...ENGINE_ENFORCED_LIMITS], { simulated: true });
    for (const name of ENGINE_ENFORCED_LIMITS) expect(labelLimit(name, defaultPolicy(), caps)).toEqual({ label: 'enforced', by: 'engine' });
    expect(measuredByDefault(capsWithout([...ENGINE_ENFORCED_LIMITS, 'storage']), LIMIT_NAMES)).toEqual(['storage']);
  });
});
