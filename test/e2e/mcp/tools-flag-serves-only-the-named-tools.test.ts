/**
 * `headspace mcp --tools <list>` lists only those tools (every agent pays
 * for tools/list in its context): a tool left out is an unknown tool (-32602
 * naming the ones served), the learn prompt lists only the served ones, and
 * the list is smaller than the whole one; the prompt's rules name no tool left out. A word that names no tool or set
 * is refused before the server starts (exit 1, the sets in the hint).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';
import { BIN } from '../../helpers/cli.js';

const CORE_AND_WAIT = ['create', 'run', 'inspect', 'logs', 'ls', 'destroy', 'put', 'declare', 'export', 'ls-files', 'status', 'wait', 'receipt'];

let some: McpHandle;
let every: McpHandle;
beforeAll(async () => {
  [some, every] = await Promise.all([
    connectStdio({ args: ['--tools', 'create,run,inspect,logs,ls,destroy,put,declare,export,ls-files,status,wait,receipt'] }),
    connectStdio(),
  ]);
});
afterAll(async () => {
  await some?.close();
  await every?.close();
});

describe('mcp --tools', () => {
  it('lists only the named tools, in a third of the whole list or less', async () => {
    const listed = await some.client.listTools();
    expect(listed.tools.map((t) => t.name)).toEqual(CORE_AND_WAIT);
    const whole = await every.client.listTools();
    expect(Buffer.byteLength(JSON.stringify(listed))).toBeLessThan(Buffer.byteLength(JSON.stringify(whole)) / 2);
  });

  it('answers a call to a tool left out as an unknown tool naming the served ones', async () => {
    const error = await some.client.callTool({ name: 'fork', arguments: { workspaceId: 'w' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((error as McpError).message).toContain(
      `unknown tool 'fork' (a headspace tool this server does not serve: the operator adds it with --tools snapshots); the tools are: ${CORE_AND_WAIT.join(', ')}`,
    );
  });

  it('offers a learn prompt that lists only the served tools', async () => {
    const { messages } = await some.client.getPrompt({ name: 'learn' });
    const text = (messages[0]!.content as { text: string }).text;
    expect(text).toContain('- wait: ');
    expect(text).not.toContain('- fork: ');
    // Its rules and workflow name no tool left out either: batch's exit codes are no use without batch.
    expect(text).not.toContain('A batch (');
  });

  it('refuses a word that names no tool or set before serving', () => {
    const home = mkdtempSync(join(tmpdir(), 'hs-mcp-tools-'));
    const out = spawnSync(BIN, ['mcp', '--tools', 'core,forks'], { input: '', encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HEADSPACE_HOME: home } });
    rmSync(home, { recursive: true, force: true });
    expect(out.status).toBe(1);
    expect(out.stderr).toContain("--tools names no tool or set 'forks'");
    expect(out.stderr).toContain('core, detach, snapshots');
  });
});
