/**
 * #18 F1: a NUL byte in the host bypassed a wildcard allow-list — with
 * `allow=*.example.com`, `CONNECT registry.npmjs.org\0.example.com:443`
 * matched the suffix while the C resolver read the name only up to the NUL.
 * Every host a job names, by every path (CONNECT, absolute URI, SOCKS5
 * domain), must be an LDH host name or an IP literal before it is matched or
 * looked up; anything else is denied as malformed, never looked up, and the
 * ledger keeps it with its control bytes escaped.
 */
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { strictHost } from '../../../../src/core/network/allow-list.js';
import { createResolver } from '../../../../src/core/network/egress-resolver.js';
import { startEgressProxy, type EgressProxy } from '../../../../src/core/network/egress-proxy.js';
import { rawExchange } from '../../../helpers/egress-client.js';

let proxy: EgressProxy | null = null;
let upstream: Server | null = null;
afterEach(async () => {
  await proxy?.close();
  upstream?.close();
  proxy = upstream = null;
});

const start = async () => (proxy = await startEgressProxy({ allow: ['*.example.com'], resolver: createResolver({ HEADSPACE_TEST_RESOLVER_MAP: '{}' }) }));

function socks5Domain(socketPath: string, host: Buffer, port: number): Promise<number> {
  return new Promise((resolve) => {
    const s = connect(socketPath);
    let got = Buffer.alloc(0);
    s.on('error', () => undefined);
    s.on('data', (c: Buffer) => {
      got = Buffer.concat([got, c]);
      if (got.length >= 4) {
        resolve(got[3]!);
        s.destroy();
      }
    });
    s.on('close', () => resolve(-1));
    const request = Buffer.concat([Buffer.from([5, 1, 0, 5, 1, 0, 3, host.length]), host, Buffer.from([port >> 8, port & 0xff])]);
    s.write(request);
  });
}

describe('a host that is not strict syntax', () => {
  it.each([
    ['a name cut by a NUL', 'registry.npmjs.org\0.example.com'],
    ['an address cut by a NUL', '8.8.8.8\0.example.com'],
    ['a control byte', 'a\x01b.example.com'],
    ['an escape byte', 'a\x1bc.example.com'],
    ['DEL', 'a\x7f.example.com'],
    ['an underscore', 'a_b.example.com'],
    ['a percent', 'a%00b.example.com'],
  ])('is denied as malformed through CONNECT and never looked up: %s', async (_what, host) => {
    const p = await start();
    const answer = await rawExchange(p.socketPath, Buffer.from(`CONNECT ${host}:443 HTTP/1.1\r\n\r\n`, 'latin1'));
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(p.resolver.lookups).toEqual([]);
    expect(p.ledger.decisions).toEqual([expect.objectContaining({ verdict: 'denied', reason: 'malformed host' })]);
    expect(p.ledger.decisions[0]!.host).toMatch(/^[\x21-\x7e]+$/);
  });

  it('is denied as malformed in an absolute http:// URI', async () => {
    const p = await start();
    const answer = await rawExchange(p.socketPath, Buffer.from('GET http://evil.org\0.example.com/ HTTP/1.1\r\n\r\n', 'latin1'));
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(p.resolver.lookups).toEqual([]);
    expect(p.ledger.decisions).toEqual([expect.objectContaining({ verdict: 'denied', reason: 'malformed host', host: 'evil.org\\x00.example.com' })]);
  });

  it('is denied as malformed as a SOCKS5 domain', async () => {
    const p = await start();
    const code = await socks5Domain(p.socketPath, Buffer.from('evil.org\0.example.com', 'latin1'), 443);
    expect(code).toBe(2);
    expect(p.resolver.lookups).toEqual([]);
    expect(p.ledger.decisions).toEqual([expect.objectContaining({ verdict: 'denied', reason: 'malformed host', via: 'socks5' })]);
  });

  it('still lets a valid name under the wildcard through, a trailing dot normalised', async () => {
    upstream = createServer((s) => s.end('hello'));
    await new Promise<void>((r) => upstream!.listen(0, '127.0.0.1', () => r()));
    const port = (upstream.address() as AddressInfo).port;
    const p = (proxy = await startEgressProxy({
      allow: [`*.example.com:${port}`],
      resolver: createResolver({ HEADSPACE_TEST_RESOLVER_MAP: JSON.stringify({ 'api.example.com': '127.0.0.1' }) }),
    }));
    const answer = await rawExchange(p.socketPath, `CONNECT API.example.com.:${port} HTTP/1.1\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200[^]*hello$/);
  });

  it.each([
    ['0x.org', '0x.org'],
    ['API.Example.COM.', 'api.example.com'],
    ['1.2.3.4', '1.2.3.4'],
    ['[::1]', '::1'],
    ['0x7f.1', null],
    ['2130706433', null],
    ['127.1', null],
    ['fe80::1%eth0', null],
    ['a..b', null],
    ['-a.com', null],
    [`${'x'.repeat(64)}.com`, null],
    ['.', null],
  ])('is judged by strictHost without guessing: %s → %s', (raw, expected) => {
    expect(strictHost(raw)).toBe(expected);
  });

  it('is refused by strictHost for any string with a byte outside a-z, 0-9, dot and dash (seeded)', () => {
    const ldh = fc.stringMatching(/^[a-z]([a-z0-9-]{0,10}[a-z0-9])?$/);
    fc.assert(
      fc.property(fc.array(ldh, { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 0x7f }), fc.nat(40), (labels, byte, at) => {
        const name = labels.join('.');
        expect(strictHost(name)).toBe(name);
        const c = String.fromCharCode(byte);
        if (/[a-zA-Z0-9.-]/.test(c)) return;
        const i = at % (name.length + 1);
        expect(strictHost(`${name.slice(0, i)}${c}${name.slice(i)}`)).toBeNull();
      }),
      { seed: 18, numRuns: 500 },
    );
  });
});
