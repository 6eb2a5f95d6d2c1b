/**
 * The HTTP listeners (MCP's --http and the dashboard share these bounds)
 * hold at most MAX_CONNECTIONS connections, closing any past it at once,
 * and close a connection whose headers have not all arrived within 10 s: a
 * red team's local user held 20,000 connections open by trickling header
 * lines, and a real client with the token got no answer. Once the hostile
 * connections are gone the server answers again. A request refused for its
 * token closes its connection, so a kept-alive caller without the token
 * holds no slot.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { MAX_CONNECTIONS } from '../../../src/mcp/loopback.js';
import { startHttp } from '../../helpers/mcp.js';

describe('an HTTP listener under a flood of slow connections', () => {
  it('closes those past its cap at once and the rest when their headers run late, then serves a real client', async () => {
    const server = await startHttp();
    const sockets: Socket[] = [];
    const closedAt: number[] = [];
    try {
      const { port } = new URL(server.url);
      const start = Date.now();
      for (let i = 0; i < MAX_CONNECTIONS + 8; i++) {
        const socket = connect(Number(port), '127.0.0.1', () => socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n'));
        socket.on('error', () => {});
        // Read what comes (the 408): a paused socket never sees the server's end, nor closes.
        socket.resume();
        socket.on('close', () => closedAt.push(Date.now() - start));
        sockets.push(socket);
      }
      await expect.poll(() => closedAt.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(8);
      // Every one of them is cut off by the headers timeout (10 s, checked every second).
      await expect.poll(() => closedAt.length, { timeout: 20_000, interval: 250 }).toBe(MAX_CONNECTIONS + 8);
      expect(Math.max(...closedAt)).toBeLessThan(15_000);
      const client = await server.connect();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      // A request refused for its token closes its connection: a kept-alive one asking every few seconds held a slot.
      const refused = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('connection')).toBe('close');
    } finally {
      for (const socket of sockets) socket.destroy();
      await server.close();
    }
  }, 40_000);
});
