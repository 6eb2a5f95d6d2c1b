/**
 * An allow-list an agent gives (MCP create) may not name, by IP literal, a
 * loopback, private or link-local address, nor one of the host's own
 * interface addresses even when it is public: what listens on 0.0.0.0 is
 * reached through it as through loopback (red team round 2, by reading the
 * proxy's checkAddress). Names and other public addresses pass.
 */
import { describe, expect, it } from 'vitest';
import { ownAddressesOf } from '../../../../src/core/network/allow-list.js';
import { refusePrivateTargets } from '../../../../src/core/network/private-targets.js';

const own = ownAddressesOf({ eth0: [{ address: '203.0.113.7' }, { address: '2001:db8::7' }] });

describe("an agent's allow-list", () => {
  it("refuses the host's own public address, and loopback and private ones", () => {
    for (const pattern of ['203.0.113.7:5432', '[2001:db8::7]:443', '127.0.0.1:7340', '10.0.0.5', '169.254.169.254']) {
      expect(() => refusePrivateTargets([pattern], own), pattern).toThrow(expect.objectContaining({ code: 'POLICY_DENIED' }));
    }
  });

  it('passes names and other public addresses', () => {
    expect(() => refusePrivateTargets(['registry.npmjs.org', '*.pythonhosted.org', '203.0.113.8:443'], own)).not.toThrow();
  });
});
