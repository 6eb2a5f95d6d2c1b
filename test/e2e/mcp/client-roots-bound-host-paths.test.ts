/**
 * When the MCP client offers roots, they and nothing else bound the host
 * paths the server touches (#10 item 6): the server's own default (its
 * working directory) no longer counts, a client that lists no roots gets
 * every host path refused, and after notifications/roots/list_changed
 * the server asks again. Driven with the SDK client against the built bin
 * over stdio, and once over Streamable HTTP (roots/list then travels on the
 * tool call's own response stream).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, startHttp, textOf, type McpHandle } from '../../helpers/mcp.js';

const base = mkdtempSync(join(tmpdir(), 'hs-mcp-client-roots-'));
const serverDir = join(base, 'server-cwd');
const clientDir = join(base, 'client-root');
const handles: McpHandle[] = [];

beforeAll(() => {
  for (const dir of [serverDir, clientDir]) {
    mkdirSync(dir);
    writeFileSync(join(dir, 'data.txt'), `${dir}\n`);
  }
});
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  rmSync(base, { recursive: true, force: true });
});

async function put(mcp: McpHandle, workspaceId: string, hostPath: string, destination: string): Promise<{ isError: boolean; text: string }> {
  const result = await mcp.client.callTool({ name: 'put', arguments: { workspaceId, hostPath, destination } });
  return { isError: result.isError === true, text: textOf(result) };
}

async function serverWithClientRoots(roots: string[], workspaceId: string): Promise<McpHandle> {
  const mcp = await connectStdio({ cwd: serverDir, roots });
  handles.push(mcp);
  const created = await mcp.client.callTool({ name: 'create', arguments: { workspaceId } });
  expect(created.isError, textOf(created)).toBeFalsy();
  return mcp;
}

describe('client roots', () => {
  it("allow paths under them and refuse the server's own directory", async () => {
    const mcp = await serverWithClientRoots([clientDir], 'client-ws');
    const ok = await put(mcp, 'client-ws', join(clientDir, 'data.txt'), 'a');
    expect(ok.isError, ok.text).toBe(false);
    const refused = await put(mcp, 'client-ws', join(serverDir, 'data.txt'), 'b');
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('policy_denied');
    expect(refused.text).toContain(`the client's roots: ${clientDir}`);
  });

  it('allow nothing when the client lists none', async () => {
    const mcp = await serverWithClientRoots([], 'no-file-ws');
    const refused = await put(mcp, 'no-file-ws', join(clientDir, 'data.txt'), 'a');
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/it has none \(the client offered no file:\/\/ roots\)/);
  });

  it('are asked again after the client says they changed', async () => {
    const roots = [clientDir];
    const mcp = await serverWithClientRoots(roots, 'changed-ws');
    expect((await put(mcp, 'changed-ws', join(serverDir, 'data.txt'), 'a')).isError).toBe(true);
    roots.splice(0, 1, serverDir);
    await mcp.client.sendRootsListChanged();
    // The notification and the next call travel in order on one stream.
    const now = await put(mcp, 'changed-ws', join(serverDir, 'data.txt'), 'b');
    expect(now.isError, now.text).toBe(false);
    expect((await put(mcp, 'changed-ws', join(clientDir, 'data.txt'), 'c')).isError).toBe(true);
  });

  it('bound host paths over Streamable HTTP too', async () => {
    // --root is a ceiling the client's roots narrow (a-root-flag-is-a-ceiling-client-roots-cannot-widen.test.ts).
    const http = await startHttp({ args: ['--root', base] });
    try {
      const client = await http.connect({ roots: [clientDir] });
      expect((await client.callTool({ name: 'create', arguments: { workspaceId: 'http-ws' } })).isError).toBeFalsy();
      const ok = await client.callTool({ name: 'put', arguments: { workspaceId: 'http-ws', hostPath: join(clientDir, 'data.txt'), destination: 'a' } });
      expect(ok.isError, textOf(ok)).toBeFalsy();
      const refused = await client.callTool({ name: 'put', arguments: { workspaceId: 'http-ws', hostPath: join(serverDir, 'data.txt'), destination: 'b' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toContain(`the client's roots: ${clientDir}`);
    } finally {
      await http.close();
    }
  });
});
