/**
 * #18 F2: a hostile job crashed the engine process (and in detached mode the
 * shared supervisor, stranding every job of the home) by holding the
 * connection cap and then connecting and closing at once: the proxy's 503
 * write to a socket already gone raised EPIPE on a socket with no 'error'
 * listener. Every socket the proxy touches must have one from the moment it
 * exists. The proxy runs in this process here, so a crash fails the run; a
 * later allowed request must still work.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createResolver } from '../../../../src/core/network/egress-resolver.js';
import { startEgressProxy, type EgressProxy } from '../../../../src/core/network/egress-proxy.js';
import { rawExchange } from '../../../helpers/egress-client.js';

let proxy: EgressProxy | null = null;
let upstream: Server | null = null;
const held: Socket[] = [];
afterEach(async () => {
  for (const s of held.splice(0)) s.destroy();
  await proxy?.close();
  upstream?.close();
  proxy = upstream = null;
});

describe('a flood of over-limit connections that reset at once', () => {
  it('leaves the proxy alive, and a later allowed request works', { timeout: 20_000 }, async () => {
    upstream = createServer((s) => s.end('still-here'));
    await new Promise<void>((r) => upstream!.listen(0, '127.0.0.1', () => r()));
    const port = (upstream.address() as AddressInfo).port;
    const crashes: unknown[] = [];
    const onCrash = (e: unknown) => crashes.push(e);
    process.prependListener('uncaughtException', onCrash);
    try {
      const p = (proxy = await startEgressProxy({
        allow: [`127.0.0.1:${port}`],
        resolver: createResolver({}),
        limits: { connectionsAtOnce: 4, headTimeoutMs: 1000 },
      }));
      for (let i = 0; i < 4; i++) {
        const s = connect(p.socketPath);
        s.on('error', () => undefined);
        held.push(s);
      }
      await new Promise((r) => setTimeout(r, 100));
      for (let round = 0; round < 10; round++) {
        await Promise.all(
          Array.from(
            { length: 50 },
            () =>
              new Promise<void>((resolve) => {
                const s = connect(p.socketPath, () => s.destroy());
                s.on('error', () => undefined);
                s.on('close', () => resolve());
              }),
          ),
        );
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(p.ledger.decisions.filter((d) => d.reason === 'too many connections').length).toBeGreaterThan(0);
      // The held connections never sent a head: the head bound frees their slots.
      for (const s of held.splice(0)) s.destroy();
      await new Promise((r) => setTimeout(r, 1200));
      const answer = await rawExchange(p.socketPath, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 200[^]*still-here$/);
      expect(crashes).toEqual([]);
    } finally {
      process.off('uncaughtException', onCrash);
    }
  });
});
