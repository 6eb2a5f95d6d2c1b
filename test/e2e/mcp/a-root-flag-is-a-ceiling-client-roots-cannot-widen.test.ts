/**
 * An operator's `--root` is a ceiling (red team round 3): a client that
 * offers roots is narrowed to them, so a token holder on a shared server who
 * answers roots/list with `file:///` still reaches nothing outside the
 * operator's folders. A client root inside a --root folder narrows further.
 * Each refusal's remedy is the one that can help: the client's roots inside
 * the ceiling, the server's --root outside it.
 * Driven with the SDK client against the built bin over stdio.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

const base = mkdtempSync(join(tmpdir(), 'hs-mcp-ceiling-'));
const allowed = join(base, 'allowed');
const inner = join(allowed, 'inner');
const outside = join(base, 'outside');
const handles: McpHandle[] = [];

beforeAll(() => {
  for (const dir of [allowed, inner, outside]) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'data.txt'), `${dir}\n`);
  }
});
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  rmSync(base, { recursive: true, force: true });
});

async function serverWith(roots: string[], workspaceId: string): Promise<McpHandle> {
  const mcp = await connectStdio({ cwd: base, roots, args: ['--root', allowed] });
  handles.push(mcp);
  const created = await mcp.client.callTool({ name: 'create', arguments: { workspaceId } });
  expect(created.isError, textOf(created)).toBeFalsy();
  return mcp;
}

async function put(mcp: McpHandle, workspaceId: string, hostPath: string, destination: string) {
  const result = await mcp.client.callTool({ name: 'put', arguments: { workspaceId, hostPath, destination } });
  return { isError: result.isError === true, text: textOf(result) };
}

describe('--root as a ceiling', () => {
  it('keeps a client that offers file:/// inside the --root folder', async () => {
    const mcp = await serverWith(['/'], 'ceiling-ws');
    const refused = await put(mcp, 'ceiling-ws', join(outside, 'data.txt'), 'a');
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('policy_denied');
    expect(refused.text).toContain(`within --root: ${allowed}`);
    // The remedy is the operator's --root, not a client root the ceiling would cut away again.
    expect(refused.text).toContain(`the server's --root (${allowed}) bounds every client root`);
    expect(refused.text).not.toContain('add the folder as a root in the MCP client');
    const ok = await put(mcp, 'ceiling-ws', join(allowed, 'data.txt'), 'b');
    expect(ok.isError, ok.text).toBe(false);
  });

  it('narrows further to a client root inside the --root folder', async () => {
    const mcp = await serverWith([inner], 'inner-ws');
    expect((await put(mcp, 'inner-ws', join(inner, 'data.txt'), 'a')).isError).toBe(false);
    const outsideClientRoot = await put(mcp, 'inner-ws', join(allowed, 'data.txt'), 'b');
    expect(outsideClientRoot.isError).toBe(true);
    // Inside the ceiling, a client root can still widen to it: that remedy stands.
    expect(outsideClientRoot.text).toContain('add the folder as a root in the MCP client');
  });
});
