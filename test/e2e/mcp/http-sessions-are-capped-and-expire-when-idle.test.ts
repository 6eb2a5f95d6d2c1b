/**
 * HTTP sessions are bounded: past --max-sessions an initialize is refused
 * with 503 (nothing is allocated for it), and a session idle for
 * --session-idle-seconds is closed and forgotten (its id is then unknown,
 * 404) so its slot and memory are free for a new client (#12 item 21).
 */
import { describe, expect, it } from 'vitest';
import { startHttp } from '../../helpers/mcp.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

describe('HTTP sessions', () => {
  it('are refused with 503 past --max-sessions', async () => {
    const server = await startHttp({ args: ['--max-sessions', '2'] });
    try {
      await server.connect();
      await server.connect();
      const third = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${server.token}` },
        body: INITIALIZE,
      });
      expect(third.status).toBe(503);
      expect(await third.text()).toContain('too many sessions (2)');
    } finally {
      await server.close();
    }
  });

  it('expire when idle, freeing their slot', async () => {
    const server = await startHttp({ args: ['--max-sessions', '1', '--session-idle-seconds', '1'] });
    try {
      const first = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${server.token}` },
        body: INITIALIZE,
      });
      expect(first.status).toBe(200);
      await first.body?.cancel();
      const id = first.headers.get('mcp-session-id')!;
      await new Promise((r) => setTimeout(r, 2500));
      const stale = await fetch(server.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${server.token}`,
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(stale.status).toBe(404);
      const client = await server.connect();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
