/**
 * `headspace mcp --http` serves Streamable HTTP only to a caller holding the
 * bearer token: no Authorization header, a wrong token or another scheme is
 * refused with 401 and a WWW-Authenticate challenge, before the MCP layer
 * sees the request. With the token, the SDK's own client works end to end.
 * The token is generated and printed on stderr, or read from
 * HEADSPACE_MCP_TOKEN; stdout stays empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { startHttp, type HttpServerHandle } from '../../helpers/mcp.js';

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
});
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

let server: HttpServerHandle;
beforeAll(async () => {
  server = await startHttp();
});
afterAll(() => server?.close());

describe('the HTTP transport', () => {
  it('refuses a request without the bearer token with 401', async () => {
    const response = await fetch(server.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('refuses a wrong token and another scheme with 401', async () => {
    for (const authorization of [`Bearer ${server.token}x`, 'Bearer ', `Basic ${server.token}`, server.token]) {
      const response = await fetch(server.url, { method: 'POST', headers: { ...HEADERS, authorization }, body: INITIALIZE });
      expect(response.status, authorization.slice(0, 12)).toBe(401);
    }
  });

  it('serves the SDK client that sends the token', async () => {
    const client = await server.connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('run');
    const created = await client.callTool({ name: 'create', arguments: { workspaceId: 'over-http' } });
    expect((created.structuredContent as unknown as ResultPackage).status).toBe('success');
    const ran = await client.callTool({ name: 'run', arguments: { workspaceId: 'over-http', argv: ['echo', 'hello'] } });
    expect((ran.structuredContent as unknown as ResultPackage).evidence[0]?.excerpt).toContain('hello');
  });

  it('prints a generated token on stderr, never on stdout', () => {
    expect(server.token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(server.stderr()).toContain(server.token);
  });
});

describe('a token from HEADSPACE_MCP_TOKEN', () => {
  it('is the one the server requires, and is not printed', async () => {
    const token = 'a-chosen-token-of-enough-length';
    const own = await startHttp({ env: { HEADSPACE_MCP_TOKEN: token } });
    try {
      expect(own.stderr()).not.toContain(token);
      const refused = await fetch(own.url, { method: 'POST', headers: HEADERS, body: INITIALIZE });
      expect(refused.status).toBe(401);
      const client = await own.connect();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await own.close();
    }
  });
});
