/**
 * The host-side egress proxy (#18) relays a job's connection only to a
 * host:port the allow-list names: CONNECT (TLS end to end, verified by the
 * client against the upstream's own CA), plain absolute-URI HTTP, and
 * SOCKS5. A denied name is never looked up; an IP literal not listed, and a
 * name resolving to a private address (even beside a public one), are refused; every decision lands in
 * the ledger with its bytes and never a path or query. Real sockets, real
 * loopback servers; the resolver's test map plays DNS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createResolver, TEST_RESOLVER_ENV } from '../../../../src/core/network/egress-resolver.js';
import { startEgressProxy, type EgressProxy } from '../../../../src/core/network/egress-proxy.js';
import { summariseEgress } from '../../../../src/core/network/egress-ledger.js';
import { connectTunnel, httpsGet, rawExchange, socks5Connect } from '../../../helpers/egress-client.js';
import { makeTestCa, startUpstreams, type TestCa, type Upstreams } from '../../../helpers/tls-upstream.js';

/** A second proxy for one test, always closed. */
async function withProxy(options: Parameters<typeof startEgressProxy>[0], body: (p: EgressProxy) => Promise<void>): Promise<void> {
  const p = await startEgressProxy(options);
  try {
    await body(p);
  } finally {
    await p.close();
  }
}

let ca: TestCa;
let up: Upstreams;
let proxy: EgressProxy;

beforeAll(async () => {
  ca = makeTestCa(['api.test', 'other.test']);
  up = await startUpstreams(ca);
  const resolver = createResolver({ [TEST_RESOLVER_ENV]: JSON.stringify({ 'api.test': '127.0.0.1', 'other.test': '127.0.0.1' }) });
  proxy = await startEgressProxy({ allow: [`api.test:${up.httpsPort}`, `api.test:${up.httpPort}`, '*.wild.test'], resolver });
});
afterAll(async () => {
  await proxy.close();
  await up.close();
});

describe('the egress proxy', () => {
  it('tunnels HTTPS to an allowed host, the client verifying the upstream against its own CA', async () => {
    const body = await httpsGet(proxy.socketPath, 'api.test', up.httpsPort, '/size/1024', ca.ca);
    expect(body.length).toBe(1024);
  });

  it('forwards a plain HTTP request to an allowed host, rewritten to origin form with its Host', async () => {
    const answer = await rawExchange(
      proxy.socketPath,
      `GET http://api.test:${up.httpPort}/hello?q=secret HTTP/1.1\r\nHost: evil.test\r\nProxy-Connection: keep-alive\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('hello from upstream');
    expect(up.seen).toContain(`GET /hello?q=secret api.test:${up.httpPort}`);
  });

  it('grants a SOCKS5 CONNECT by name to an allowed host', async () => {
    const granted = await socks5Connect(proxy.socketPath, 'api.test', up.httpPort);
    expect(granted.code).toBe(0);
    granted.socket!.destroy();
  });

  it('refuses a name not in the allow-list without ever looking it up', async () => {
    const before = proxy.resolver.lookups.length;
    await expect(connectTunnel(proxy.socketPath, `other.test:${up.httpsPort}`)).rejects.toThrow(/403/);
    expect((await socks5Connect(proxy.socketPath, 'exfil-4f2a.other.test', 443)).code).toBe(2);
    expect(proxy.resolver.lookups.slice(before)).toEqual([]);
  });

  it('refuses an IP literal the allow-list does not name', async () => {
    await expect(connectTunnel(proxy.socketPath, `127.0.0.1:${up.httpsPort}`)).rejects.toThrow(/403/);
  });

  it('refuses an allowed name that resolves to a private address', () =>
    withProxy({ allow: ['localhost:9'], resolver: createResolver({}) }, async (real) => {
      await expect(connectTunnel(real.socketPath, 'localhost:9')).rejects.toThrow(/403/);
      expect(real.ledger.decisions[0]).toMatchObject({ verdict: 'denied', host: 'localhost', reason: 'private address' });
    }));

  it('refuses a name whose answers mix a public and a private address (rebinding), whole', () => {
    const mixed = { lookups: [] as string[], resolve: async () => ({ addresses: ['93.184.216.34', '169.254.169.254'], fromTestMap: false }) };
    return withProxy({ allow: ['meta.test'], resolver: mixed }, async (guarded) => {
      await expect(connectTunnel(guarded.socketPath, 'meta.test:443')).rejects.toThrow(/403/);
      expect(guarded.ledger.decisions[0]).toMatchObject({ verdict: 'denied', host: 'meta.test', reason: 'private address' });
    });
  });

  it('reaches a private address when an IP-literal pattern names it', () =>
    withProxy({ allow: [`127.0.0.1:${up.httpPort}`], resolver: createResolver({}) }, async (listed) => {
      const answer = await rawExchange(listed.socketPath, `GET http://127.0.0.1:${up.httpPort}/ HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(answer).toContain('hello from upstream');
    }));

  it('records each decision with host, port and bytes, and never a path or query', async () => {
    await new Promise((r) => setTimeout(r, 50));
    const text = JSON.stringify(proxy.ledger.decisions);
    expect(text).not.toContain('secret');
    expect(text).not.toContain('/hello');
    const https = proxy.ledger.decisions.find((d) => d.verdict === 'allowed' && d.port === up.httpsPort)!;
    expect(https.bytesDown).toBeGreaterThan(1024);
    expect(https.bytesUp).toBeGreaterThan(0);
    const summary = summariseEgress(proxy.ledger.decisions, proxy.ledger);
    expect(summary).toMatch(/^network: 3 allowed to 1 host .*, 3 denied: /);
    expect(summary).toContain('other.test');
  });
});
