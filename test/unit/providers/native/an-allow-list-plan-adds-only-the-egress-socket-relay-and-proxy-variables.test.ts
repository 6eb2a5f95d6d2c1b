/**
 * The native plan for a network allow-list (#18) differs from the closed
 * default in exactly three ways: a read-only bind of the engine's egress
 * socket at /run/headspace-egress.sock, the proxy variables in the job's
 * environment, and `--relay` in the job entry before Landlock. The network
 * namespace stays unshared, and the closed default's plan is unchanged. An
 * allow-list without an egress socket is refused (fail closed).
 */
import { describe, expect, it } from 'vitest';
import { defaultPolicy, type Policy } from '../../../../src/core/policy/policy.js';
import { planBwrap } from '../../../../src/providers/native/plan-bwrap.js';
import { planJobEntry } from '../../../../src/providers/native/plan-job-entry.js';
import { bwrapPlanInput } from './bwrap-plan-input.js';

const allowList: Policy = { ...defaultPolicy(), network: 'allowlist', networkAllow: ['api.test'] };
const budget = defaultPolicy().budget;

describe('the native plan of an allow-list workspace', () => {
  it('binds the egress socket read-only and keeps every namespace unshared', () => {
    const closed = planBwrap(bwrapPlanInput());
    const open = planBwrap(bwrapPlanInput({ policy: allowList, egressSocket: '/tmp/hs-egress-x/egress.sock' }));
    const at = open.args.indexOf('/tmp/hs-egress-x/egress.sock');
    expect(open.args.slice(at - 1, at + 2)).toEqual(['--ro-bind', '/tmp/hs-egress-x/egress.sock', '/run/headspace-egress.sock']);
    expect(open.args).toContain('--unshare-all');
    expect(open.args.some((a) => a.startsWith('--share-net'))).toBe(false);
    // Nothing else changes: the same arguments once the bind is taken out.
    expect([...open.args.slice(0, at - 1), ...open.args.slice(at + 2)]).toEqual(closed.args);
  });

  it('sets the proxy variables, upper and lower case, and lets the caller override them', () => {
    const { env } = planBwrap(bwrapPlanInput({ policy: allowList, egressSocket: '/s', env: { NO_PROXY: 'internal.test' } }));
    expect(env).toMatchObject({
      HTTP_PROXY: 'http://127.0.0.1:3128',
      https_proxy: 'http://127.0.0.1:3128',
      ALL_PROXY: 'socks5h://127.0.0.1:1080',
      NO_PROXY: 'internal.test',
      no_proxy: 'localhost,127.0.0.1,::1',
    });
  });

  it('starts the relay in the job entry before the Landlock rules, only when asked', () => {
    const withRelay = planJobEntry({ argv: ['true'], exposures: [], hostPaths: [], budget, egress: true });
    const relay = withRelay.indexOf('--relay');
    expect(withRelay.slice(relay, relay + 4)).toEqual(['--relay', '/run/headspace-egress.sock', '3128', '1080']);
    expect(relay).toBeLessThan(withRelay.indexOf('--landlock'));
    expect(planJobEntry({ argv: ['true'], exposures: [], hostPaths: [], budget })).not.toContain('--relay');
  });

  it('leaves the closed default with no socket and no proxy variables', () => {
    const { args, env } = planBwrap(bwrapPlanInput());
    expect(args.join(' ')).not.toContain('egress');
    expect(Object.keys(env).filter((k) => /proxy/i.test(k))).toEqual([]);
  });

  it('refuses an allow-list given no egress socket', () => {
    expect(() => planBwrap(bwrapPlanInput({ policy: allowList }))).toThrow(expect.objectContaining({ code: 'POLICY_DENIED' }));
  });
});
