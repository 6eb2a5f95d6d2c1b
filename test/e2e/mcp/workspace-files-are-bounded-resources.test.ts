/**
 * A workspace's files are readable as resources
 * (headspace://workspace/{workspaceId}/file/{+path}), read whole through the
 * provider's own read: UTF-8 comes back as text, anything else as base64, a
 * file over 256 KiB is refused (never cut silently), a path leaving the
 * workspace or a missing file is an error, and on the native provider a
 * symlink is refused instead of followed (the same rule as export).
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const URI = (path: string) => `headspace://workspace/files/file/${path}`;
let mcp: McpHandle;
const readiness = await nativeReadiness();
const native = readiness.ready;
const hostDir = mkdtempSync(join(tmpdir(), 'hs-mcp-res-'));

async function tool(name: string, args: Record<string, unknown>): Promise<void> {
  const result = await mcp.client.callTool({ name, arguments: args });
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
}

async function readError(uri: string): Promise<McpError> {
  const error = await mcp.client.readResource({ uri }).then(
    (r) => new Error(`expected an error, got ${JSON.stringify(r).slice(0, 200)}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

beforeAll(async () => {
  mcp = await connectStdio({ provider: native ? 'native' : 'fake', args: ['--root', hostDir] });
  writeFileSync(join(hostDir, 'notes.txt'), 'héllo\nworld\n');
  writeFileSync(join(hostDir, 'blob.bin'), Buffer.from([0, 1, 2, 255]));
  writeFileSync(join(hostDir, 'big.txt'), 'x'.repeat(256 * 1024 + 1));
  await tool('create', { workspaceId: 'files' });
  for (const name of ['notes.txt', 'blob.bin', 'big.txt'])
    await tool('put', { workspaceId: 'files', hostPath: join(hostDir, name), destination: `in/${name}` });
}, 60_000);
afterAll(async () => {
  await mcp?.client.callTool({ name: 'destroy', arguments: { workspaceId: 'files', force: true } }).catch(() => {});
  await mcp?.close();
  rmSync(hostDir, { recursive: true, force: true });
});

describe('workspace files as resources', () => {
  it('offers the file template', async () => {
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['headspace://workspace/{workspaceId}/file/{+path}']);
  });

  it('returns UTF-8 as text and other bytes as base64', async () => {
    expect((await mcp.client.readResource({ uri: URI('in/notes.txt') })).contents).toEqual([
      { uri: URI('in/notes.txt'), mimeType: 'text/plain; charset=utf-8', text: 'héllo\nworld\n' },
    ]);
    expect((await mcp.client.readResource({ uri: URI('in/blob.bin') })).contents).toEqual([
      { uri: URI('in/blob.bin'), mimeType: 'application/octet-stream', blob: 'AAEC/w==' },
    ]);
  });

  it('refuses a file over 256 KiB instead of cutting it', async () => {
    const error = await readError(URI('in/big.txt'));
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('262145 bytes');
  });

  it('reports a missing file or workspace as not found, and a path leaving the workspace as invalid', async () => {
    expect((await readError(URI('in/none.txt'))).code).toBe(-32002);
    expect((await readError('headspace://workspace/nowhere/file/a.txt')).code).toBe(-32002);
    expect((await readError(URI('%2e%2e/escape.txt'))).code).toBe(-32602);
  });

  // The fake provider has no symlinks; on a host where native is not ready the reason is printed.
  it.skipIf(!native)(`refuses a symlink on the native provider instead of following it${native ? '' : ` (skipped: ${readiness.reason})`}`, async () => {
    await tool('run', { workspaceId: 'files', argv: ['ln', '-s', '/etc/hostname', 'link'] });
    const error = await readError(URI('link'));
    expect(error.code).toBe(-32602);
    expect(error.message).not.toContain(hostDir);
  });
});
