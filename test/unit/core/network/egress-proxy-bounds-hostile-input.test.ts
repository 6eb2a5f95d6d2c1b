/**
 * The egress proxy faces the job and assumes it is hostile (#18): a head
 * past its byte bound, a head sent too slowly (slowloris), more connections
 * at once than the cap, a request with two framings (the smuggling shape),
 * a folded header line, and a SOCKS5 command other than CONNECT are each
 * refused, and each refusal is counted as a denial; a tunnel left silent is
 * closed at the idle bound. Bounds are tightened
 * here through the proxy's own option, so each test takes milliseconds.
 */
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createResolver } from '../../../../src/core/network/egress-resolver.js';
import { startEgressProxy, type EgressProxy } from '../../../../src/core/network/egress-proxy.js';
import { rawExchange } from '../../../helpers/egress-client.js';

let proxy: EgressProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  proxy = null;
});

const start = async (limits = {}) => (proxy = await startEgressProxy({ allow: ['api.test'], resolver: createResolver({}), limits }));

describe('the egress proxy under hostile input', () => {
  it('answers 431 to a request head past its bound, without waiting for its end', async () => {
    const p = await start({ headBytes: 1024 });
    const answer = await rawExchange(p.socketPath, `CONNECT api.test:443 HTTP/1.1\r\nX-Pad: ${'a'.repeat(4096)}`);
    expect(answer).toMatch(/^HTTP\/1\.1 431/);
  });

  it('closes a connection whose head does not arrive in time', async () => {
    const p = await start({ headTimeoutMs: 100 });
    const started = Date.now();
    const answer = await rawExchange(p.socketPath, 'CONNECT api.te', 5000);
    expect(answer).toBe('');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('refuses connections past the cap at once, with 503, and counts them', async () => {
    const p = await start({ connectionsAtOnce: 2 });
    const held = [connect(p.socketPath), connect(p.socketPath)];
    await new Promise((r) => setTimeout(r, 100));
    const answer = await rawExchange(p.socketPath, 'CONNECT api.test:443 HTTP/1.1\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(p.ledger.decisions.some((d) => d.reason === 'too many connections')).toBe(true);
    for (const s of held) s.destroy();
  });

  it('refuses a request with both Content-Length and Transfer-Encoding', async () => {
    const p = await start();
    const answer = await rawExchange(
      p.socketPath,
      'POST http://api.test/ HTTP/1.1\r\nHost: api.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET http://evil.test/ HTTP/1.1\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect(p.ledger.decisions).toEqual([expect.objectContaining({ verdict: 'denied', reason: 'bad request' })]);
  });

  it('refuses a folded header line and a bare-LF head', async () => {
    const p = await start();
    expect(await rawExchange(p.socketPath, 'GET http://api.test/ HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
    expect(await rawExchange(p.socketPath, 'GET http://api.test/ HTTP/1.1\nHost: api.test\r\n\r\n')).toMatch(/^HTTP\/1\.1 400/);
  });

  it('closes an open tunnel that stays silent past the idle bound, and records it', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    const port = (silent.address() as AddressInfo).port;
    try {
      const p = (proxy = await startEgressProxy({ allow: [`127.0.0.1:${port}`], resolver: createResolver({}), limits: { idleTimeoutMs: 150 } }));
      const started = Date.now();
      const answer = await rawExchange(p.socketPath, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`, 5000);
      expect(answer).toMatch(/^HTTP\/1\.1 200/);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(p.ledger.decisions).toEqual([expect.objectContaining({ verdict: 'allowed', host: '127.0.0.1', port })]);
    } finally {
      silent.close();
    }
  });

  it('refuses SOCKS5 UDP ASSOCIATE and BIND (CONNECT only)', async () => {
    const p = await start();
    const answer = Buffer.from(await rawExchange(p.socketPath, Buffer.from([5, 1, 0, 5, 3, 0, 1, 1, 1, 1, 1, 0, 53])), 'latin1');
    expect([...answer.subarray(0, 2)]).toEqual([5, 0]);
    expect(answer[3]).toBe(7); // command not supported
  });
});
