/**
 * Without --host, `headspace mcp --http` listens on 127.0.0.1 only: the
 * printed URL names it, the same port on this machine's other addresses
 * refuses connections, and a request whose Host header names anything but a
 * loopback address (a DNS-rebound web page) is refused with 403.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type HttpServerHandle } from '../../helpers/mcp.js';

let server: HttpServerHandle;
beforeAll(async () => {
  server = await startHttp();
});
afterAll(() => server?.close());

function port(): number {
  return Number(new URL(server.url).port);
}

function connects(host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port: port() });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the default HTTP bind', () => {
  it('is 127.0.0.1', async () => {
    expect(new URL(server.url).hostname).toBe('127.0.0.1');
    expect(await connects('127.0.0.1')).toBe(true);
  });

  it("is not reachable on the machine's other addresses", async () => {
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4')
      .map((a) => a!.address);
    for (const address of others) expect(await connects(address), address).toBe(false);
  });

  it('refuses a Host header that is not loopback with 403', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: port(),
          path: '/mcp',
          method: 'POST',
          headers: { host: `attacker.example:${port()}`, authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.once('error', reject);
      req.end('{}');
    });
    expect(status).toBe(403);
  });
});
