/**
 * When the egress proxy's close() resolves, every connection it allowed is in
 * the ledger with its bytes so far (#18): the engine journals the ledger the
 * moment close() resolves, so a tunnel still open (the job's relay not yet
 * torn down), one its client just ended, or one its upstream just ended must
 * not be recorded later, or never. A connection whose decision was still
 * pending (its name being looked up) is recorded too, as denied because the
 * job ended first. Real sockets: a loopback echo upstream named by an
 * IP-literal pattern, CONNECT and SOCKS5 clients.
 */
import { createServer, type Server, type Socket } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy } from '../../../../src/core/network/egress-proxy.js';
import { connectTunnel, rawExchange, socks5Connect } from '../../../helpers/egress-client.js';

let echo: Server;
let port: number;

beforeAll(async () => {
  // Echoes what it reads; ends its side after echoing a chunk containing "END" (the upstream ends first).
  echo = createServer({ allowHalfOpen: true }, (s) => {
    s.on('error', () => undefined);
    s.on('data', (c: Buffer) => (c.includes('END') ? s.end(c) : s.write(c)));
    s.on('end', () => s.end());
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  port = (echo.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((r) => echo.close(() => r())));

/** Sends `payload` through an open tunnel and waits until its echo came back whole. */
function exchange(socket: Socket, payload: string): Promise<void> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (c: Buffer) => {
      got += c.toString('latin1');
      if (got.length < payload.length) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
    socket.on('error', () => undefined);
    socket.resume();
    socket.write(payload);
  });
}

type Ending = 'still open' | 'client ended' | 'client destroyed' | 'upstream ended';

describe('closing the egress proxy', () => {
  it('records a tunnel still open at close, with its bytes so far, before close() resolves', async () => {
    const proxy = await startEgressProxy({ allow: [`127.0.0.1:${port}`] });
    const tunnel = await connectTunnel(proxy.socketPath, `127.0.0.1:${port}`);
    await exchange(tunnel, 'ping');
    await proxy.close();
    expect(proxy.ledger.allowed).toBe(1);
    expect(proxy.ledger.decisions).toEqual([
      expect.objectContaining({ verdict: 'allowed', host: '127.0.0.1', port, via: 'http-connect', bytesUp: 4, bytesDown: 4 }),
    ]);
    tunnel.destroy();
  });

  it('records every allowed connection however it was ending when close() was called (seeded)', async () => {
    const endings: Ending[] = ['still open', 'client ended', 'client destroyed', 'upstream ended'];
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ ending: fc.constantFrom(...endings), socks: fc.boolean(), size: fc.integer({ min: 1, max: 4096 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (plan) => {
          const proxy = await startEgressProxy({ allow: [`127.0.0.1:${port}`] });
          const clients: Socket[] = [];
          for (const { ending, socks, size } of plan) {
            const client = socks
              ? (await socks5Connect(proxy.socketPath, '127.0.0.1', port)).socket!
              : await connectTunnel(proxy.socketPath, `127.0.0.1:${port}`);
            clients.push(client);
            const payload = ending === 'upstream ended' ? `${'x'.repeat(size)}END` : 'x'.repeat(size);
            await exchange(client, payload);
            // The ending is begun, never waited for: close() races it, as the end of a job races its relay.
            if (ending === 'client ended') client.end();
            if (ending === 'client destroyed') client.destroy();
          }
          await proxy.close();
          expect(proxy.ledger.allowed).toBe(plan.length);
          expect(proxy.ledger.decisions.map((d) => [d.verdict, d.bytesUp, d.bytesDown])).toEqual(
            plan.map(({ ending, size }) => {
              const bytes = size + (ending === 'upstream ended' ? 3 : 0);
              return ['allowed', bytes, bytes];
            }),
          );
          for (const c of clients) c.destroy();
        },
      ),
      { seed: 18, numRuns: 15 },
    );
  });

  it('records a connection whose decision was still pending as denied because the job ended first, without waiting for it', async () => {
    const lookups: string[] = [];
    const never = { lookups, resolve: (host: string) => (lookups.push(host), new Promise<never>(() => undefined)) };
    const proxy = await startEgressProxy({ allow: ['slow.test'], resolver: never });
    const answer = rawExchange(proxy.socketPath, 'CONNECT slow.test:443 HTTP/1.1\r\nHost: slow.test:443\r\n\r\n');
    while (lookups.length === 0) await new Promise((r) => setTimeout(r, 5));
    const started = Date.now();
    await proxy.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(proxy.ledger.decisions).toEqual([expect.objectContaining({ verdict: 'denied', host: 'slow.test', port: 443, reason: 'job ended first' })]);
    // The job's side is ended, never answered 200.
    expect(await answer).not.toMatch(/^HTTP\/1\.1 200/);
  });
});
