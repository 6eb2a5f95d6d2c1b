/**
 * `headspace mcp --http` refuses a request whose Origin is not a loopback
 * origin with 403, token or not, as the MCP spec requires against DNS
 * rebinding; a loopback origin and no Origin at all (a non-browser client)
 * are served (#12 item 21).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttp, type HttpServerHandle } from '../../helpers/mcp.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});

let server: HttpServerHandle;
beforeAll(async () => {
  server = await startHttp();
});
afterAll(() => server?.close());

const post = (origin: string | undefined) =>
  fetch(server.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${server.token}`,
      ...(origin === undefined ? {} : { origin }),
    },
    body: INITIALIZE,
  });

describe('the Origin check', () => {
  it('refuses a foreign origin with 403', async () => {
    for (const origin of ['http://attacker.example', 'https://evil.test:8443', 'null', 'http://127.0.0.1.evil.test']) {
      const response = await post(origin);
      expect(response.status, origin).toBe(403);
      expect(await response.text()).toContain('Origin');
    }
  });

  it('serves a loopback origin and a request without one', async () => {
    const port = new URL(server.url).port;
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`, undefined]) {
      const response = await post(origin);
      expect(response.status, String(origin)).toBe(200);
      await response.body?.cancel();
    }
  });
});
