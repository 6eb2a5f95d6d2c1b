/**
 * A network allow-list (#18) is enforced only by a provider whose
 * capabilities list `network-allowlist` (native; simulated on the fake).
 * Anywhere else (docker today) the network limit reads measured, and create
 * refuses it with exit 3 naming the missing feature and the remedy; the
 * closed default is unaffected. `enabled` stays refused everywhere.
 */
import { describe, expect, it } from 'vitest';
import { assertEnforceable, effectivePolicy } from '../../../../src/core/policy/effective-policy.js';
import { labelLimit } from '../../../../src/core/policy/label-limit.js';
import { defaultPolicy, LIMIT_NAMES, type Policy } from '../../../../src/core/policy/policy.js';
import type { ProviderCapabilities } from '../../../../src/core/provider.js';

const caps = (features: ProviderCapabilities['features'], simulated = false): ProviderCapabilities => ({
  provider: features?.length ? 'native' : 'docker',
  enforces: Object.fromEntries(LIMIT_NAMES.map((l) => [l, true])) as ProviderCapabilities['enforces'],
  reasons: {},
  networkAccess: false,
  hostPaths: false,
  layers: [],
  durable: true,
  ...(features === undefined ? {} : { features }),
  ...(simulated ? { simulated } : {}),
});
const allowList: Policy = { ...defaultPolicy(), network: 'allowlist', networkAllow: ['registry.npmjs.org'] };

describe('a network allow-list', () => {
  it('is enforced by a provider listing network-allowlist, simulated on a simulating one', () => {
    expect(labelLimit('network', allowList, caps(['network-allowlist'])).label).toBe('enforced');
    expect(labelLimit('network', allowList, caps(['network-allowlist'], true)).label).toBe('simulated');
  });

  it('is refused with exit 3 elsewhere, naming the feature and the remedy', () => {
    const docker = caps([]);
    let refusal: unknown;
    try {
      assertEnforceable(effectivePolicy(allowList, docker), 'docker');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ code: 'POLICY_DENIED', category: 'policy_denied' });
    expect((refusal as Error).message).toContain('does not offer network-allowlist');
    expect((refusal as { hint: string }).hint).toMatch(/native provider/);
  });

  it('leaves the closed default enforced on the same provider', () => {
    expect(labelLimit('network', defaultPolicy(), caps([])).label).toBe('enforced');
    expect(labelLimit('network', { ...defaultPolicy(), network: 'enabled' }, caps(['network-allowlist'])).label).toBe('measured');
  });
});
