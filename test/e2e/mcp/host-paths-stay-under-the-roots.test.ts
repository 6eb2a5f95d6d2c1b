/**
 * Over MCP the caller is a model, so the server reads and writes host paths
 * only under its roots (#10 item 6: `put` read /etc/shadow into a workspace,
 * `export` wrote job bytes into /root). Without client roots, the roots are
 * the `--root` folders, else the directory the server started in, and none
 * when that is `/`. The check is on real paths: `..`, a symlink to a file or
 * folder outside, and a link at an export's last component are all refused
 * as policy_denied naming the roots, before anything is read or written.
 * Driven with the SDK client against the built bin over stdio.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

const base = mkdtempSync(join(tmpdir(), 'hs-mcp-roots-'));
const inside = join(base, 'inside');
const other = join(base, 'other');
const outside = join(base, 'outside');
const handles: McpHandle[] = [];

beforeAll(() => {
  for (const dir of [inside, other, outside]) mkdirSync(dir);
  writeFileSync(join(inside, 'data.txt'), 'inside\n');
  writeFileSync(join(other, 'data.txt'), 'other\n');
  writeFileSync(join(outside, 'secret.txt'), 'host secret\n');
  symlinkSync(join(outside, 'secret.txt'), join(inside, 'link-to-secret'));
  symlinkSync(outside, join(inside, 'link-to-outside'));
  symlinkSync(join(outside, 'planted.txt'), join(inside, 'dangling-link'));
});
afterAll(async () => {
  await Promise.all(handles.map((h) => h.close()));
  rmSync(base, { recursive: true, force: true });
});

async function server(options: Parameters<typeof connectStdio>[0]): Promise<McpHandle> {
  const handle = await connectStdio(options);
  handles.push(handle);
  return handle;
}

async function call(mcp: McpHandle, name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }> {
  const result = await mcp.client.callTool({ name, arguments: args });
  return { isError: result.isError === true, text: textOf(result) };
}

/** A workspace holding a declared artifact out.txt, ready to export. */
async function workspaceWithArtifact(mcp: McpHandle, id: string): Promise<void> {
  expect((await call(mcp, 'create', { workspaceId: id })).isError).toBe(false);
  const ran = await call(mcp, 'run', { workspaceId: id, argv: ['write', 'out.txt', 'job bytes'], declares: [{ name: 'out.txt', purpose: 'export target' }] });
  expect(ran.isError, ran.text).toBe(false);
}

function expectRefusedByRoots(result: { isError: boolean; text: string }, roots: RegExp): void {
  expect(result.isError, result.text).toBe(true);
  expect(result.text).toContain('policy_denied');
  expect(result.text).toMatch(/roots/);
  expect(result.text).toMatch(roots);
}

describe('host paths over MCP without client roots', () => {
  let mcp: McpHandle;
  beforeAll(async () => {
    mcp = await server({ cwd: inside });
    await workspaceWithArtifact(mcp, 'roots-ws');
  });

  it('puts a file from the directory the server started in', async () => {
    const put = await call(mcp, 'put', { workspaceId: 'roots-ws', hostPath: 'data.txt', destination: 'in/data.txt' });
    expect(put.isError, put.text).toBe(false);
  });

  it('refuses to put /etc/shadow, naming the roots and --root', async () => {
    const put = await call(mcp, 'put', { workspaceId: 'roots-ws', hostPath: '/etc/shadow', destination: 'shadow' });
    expectRefusedByRoots(put, new RegExp(inside));
    expect(put.text).toContain('--root');
  });

  it('refuses a path that leaves the root through ..', async () => {
    expectRefusedByRoots(
      await call(mcp, 'put', { workspaceId: 'roots-ws', hostPath: join(inside, '..', 'outside', 'secret.txt'), destination: 'a' }),
      /resolves to|outside/,
    );
  });

  it('refuses a symlink inside the root that points outside it, to a file or through a folder', async () => {
    expectRefusedByRoots(
      await call(mcp, 'put', { workspaceId: 'roots-ws', hostPath: join(inside, 'link-to-secret'), destination: 'b' }),
      /resolves to .*secret\.txt/,
    );
    expectRefusedByRoots(
      await call(mcp, 'put', { workspaceId: 'roots-ws', hostPath: join(inside, 'link-to-outside', 'secret.txt'), destination: 'c' }),
      /resolves to/,
    );
  });

  it('refuses run inputs and create hostPaths outside the roots', async () => {
    expectRefusedByRoots(await call(mcp, 'run', { workspaceId: 'roots-ws', argv: ['true'], inputs: [{ destination: 'x', hostPath: '/etc/passwd' }] }), /roots/);
    expectRefusedByRoots(await call(mcp, 'create', { workspaceId: 'roots-ws-2', hostPaths: ['/usr/share'] }), /roots/);
  });

  it('exports into the root, and refuses /root, a folder link leading outside and a link as the last component', async () => {
    const ok = await call(mcp, 'export', { workspaceId: 'roots-ws', name: 'out.txt', to: join(inside, 'exported.txt') });
    expect(ok.isError, ok.text).toBe(false);
    expect(readFileSync(join(inside, 'exported.txt'), 'utf8')).toBe('job bytes');

    expectRefusedByRoots(await call(mcp, 'export', { workspaceId: 'roots-ws', name: 'out.txt', to: '/root/headspace-roots-test.txt' }), /roots/);
    expect(existsSync('/root/headspace-roots-test.txt')).toBe(false);
    expectRefusedByRoots(
      await call(mcp, 'export', { workspaceId: 'roots-ws', name: 'out.txt', to: join(inside, 'link-to-outside', 'planted.txt') }),
      /resolves to/,
    );
    const throughLink = await call(mcp, 'export', { workspaceId: 'roots-ws', name: 'out.txt', to: join(inside, 'dangling-link'), overwrite: true });
    expect(throughLink.isError).toBe(true);
    expect(throughLink.text).toMatch(/symbolic link/);
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });

  it('exports into a folder named with a trailing slash, as the CLI does, and refuses one that does not exist', async () => {
    mkdirSync(join(inside, 'into'));
    const into = await call(mcp, 'export', { workspaceId: 'roots-ws', name: 'out.txt', to: `${join(inside, 'into')}/` });
    expect(into.isError, into.text).toBe(false);
    expect(readFileSync(join(inside, 'into', 'out.txt'), 'utf8')).toBe('job bytes');
    // A missing folder used to become a file of that name (resolve() dropped the slash), where the CLI refuses.
    const missing = await call(mcp, 'export', { workspaceId: 'roots-ws', name: 'out.txt', to: `${join(inside, 'nodir')}/` });
    expect(missing.isError, missing.text).toBe(true);
    expect(missing.text).toMatch(/does not exist/);
    expect(existsSync(join(inside, 'nodir'))).toBe(false);
    expectRefusedByRoots(await call(mcp, 'export', { workspaceId: 'roots-ws', name: 'out.txt', to: `${join(inside, 'link-to-outside')}/` }), /resolves to/);
    expect(existsSync(join(outside, 'out.txt'))).toBe(false);
  });
});

describe('host paths over MCP with --root', () => {
  it('allows only the --root folders, not the directory the server started in', async () => {
    const mcp = await server({ cwd: inside, args: ['--root', other] });
    expect((await call(mcp, 'create', { workspaceId: 'flag-ws' })).isError).toBe(false);
    const put = await call(mcp, 'put', { workspaceId: 'flag-ws', hostPath: join(other, 'data.txt'), destination: 'd' });
    expect(put.isError, put.text).toBe(false);
    expectRefusedByRoots(
      await call(mcp, 'put', { workspaceId: 'flag-ws', hostPath: join(inside, 'data.txt'), destination: 'e' }),
      new RegExp(`--root: ${other}`),
    );
  });

  it('refuses to start with a --root that is not a directory', async () => {
    await expect(connectStdio({ args: ['--root', join(base, 'no-such-dir')] })).rejects.toThrow(/--root .* is not an existing directory/);
  });
});

describe('host paths over MCP started in /', () => {
  it('allows none, and the refusal names --root as the remedy', async () => {
    const mcp = await server({ cwd: '/' });
    expect((await call(mcp, 'create', { workspaceId: 'slash-ws' })).isError).toBe(false);
    const put = await call(mcp, 'put', { workspaceId: 'slash-ws', hostPath: join(inside, 'data.txt'), destination: 'f' });
    expectRefusedByRoots(put, /it has none.*started in \//);
    expect(put.text).toContain('--root DIR');
  });
});
