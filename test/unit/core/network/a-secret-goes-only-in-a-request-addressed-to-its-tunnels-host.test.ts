import { describe, expect, it } from 'vitest';
import { requestElsewhere } from '../../../../src/core/network/egress-intercept.js';

// Red team (#18 item 3): a job CONNECTed to api.test and sent `Host: evil.test` (or an absolute-form target, or the
// placeholder as Host) and the proxy substituted the value anyway: a front end routing by Host hands it to another origin.
describe('a request carrying its own host placeholder', () => {
  const head = (host: string | string[]) => (Array.isArray(host) ? host : [host]).map((h) => ['Host', h] as const);

  it('passes when its target is origin-form and its one Host names the tunnel host, with or without the port', () => {
    expect(requestElsewhere('/v1/x', head('api.test'), 'api.test', 443)).toBeNull();
    expect(requestElsewhere('/v1/x', head('API.test:443'), 'api.test', 443)).toBeNull();
    expect(requestElsewhere('/', head('[::1]:9443'), '::1', 9443)).toBeNull();
  });

  it('is refused when Host names another host or port, is missing or repeated, or carries a placeholder', () => {
    expect(requestElsewhere('/', head('evil.test'), 'api.test', 443)).toMatch(/Host names/);
    expect(requestElsewhere('/', head('api.test:8443'), 'api.test', 443)).toMatch(/port 8443/);
    expect(requestElsewhere('/', [], 'api.test', 443)).toMatch(/exactly one Host/);
    expect(requestElsewhere('/', head(['api.test', 'evil.test']), 'api.test', 443)).toMatch(/exactly one Host/);
    expect(requestElsewhere('/', head('hs-secret-TOKEN-0123'), 'api.test', 443)).toMatch(/never put in Host/);
    expect(requestElsewhere('/', head('api.test.evil.test'), 'api.test', 443)).toMatch(/Host names/);
  });

  it('is refused when its target is absolute-form, whatever Host says', () => {
    expect(requestElsewhere('https://evil.test:8443/abs', head('api.test'), 'api.test', 443)).toMatch(/absolute-form/);
  });
});
