/**
 * The egress proxy keeps half-open sockets (a tunnel needs them), so a job
 * that half-closes a connection before sending a whole request head once
 * held its slot until the head timeout (10 s): with the cap at one, the next
 * connection was refused 503 meanwhile. It is freed as soon as the job's
 * end arrives, for an HTTP head and a SOCKS5 handshake alike.
 */
import { connect } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { createResolver } from '../../../../src/core/network/egress-resolver.js';
import { startEgressProxy, type EgressProxy } from '../../../../src/core/network/egress-proxy.js';
import { rawExchange } from '../../../helpers/egress-client.js';

let proxy: EgressProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  proxy = null;
});

const halfClose = (socketPath: string, sent: string | Buffer) =>
  new Promise<void>((resolve) => {
    const s = connect(socketPath, () => s.end(sent));
    s.on('close', () => resolve());
    s.on('error', () => resolve());
    s.resume();
  });

it('frees the slot of a connection half-closed mid-head at once, not at the head timeout', async () => {
  const p = (proxy = await startEgressProxy({ allow: ['api.test'], resolver: createResolver({}), limits: { connectionsAtOnce: 1, headTimeoutMs: 60_000 } }));
  for (const partial of ['CONNECT api.te', Buffer.from([5, 1])]) {
    const started = Date.now();
    // Resolves when the proxy closes its side: before the fix, only at the 60 s head timeout.
    await halfClose(p.socketPath, partial);
    expect(Date.now() - started).toBeLessThan(5000);
    const answer = await rawExchange(p.socketPath, 'CONNECT evil.test:443 HTTP/1.1\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
  }
});
