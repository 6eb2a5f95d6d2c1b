/**
 * Over MCP an allow-list may not name one of the host's own or a private
 * address by IP literal (`allow=127.0.0.1:7340`, `10.0.0.5`): that opens the
 * host's local services (a database, the dashboard, this MCP server) to the
 * job, which is the operator's decision, not an agent's. create is refused
 * (policy_denied) before anything is made; public names still work, and the
 * operator's CLI still takes such a list. (A manifest sets no network.)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

const project = mkdtempSync(join(tmpdir(), 'hs-mcp-private-'));
let mcp: McpHandle | undefined;
afterAll(async () => {
  await mcp?.close();
  rmSync(project, { recursive: true, force: true });
});

describe("an agent's allow-list", () => {
  it("may not name the host's own or a private address", async () => {
    mcp = await connectStdio({ cwd: project });
    const call = (name: string, args: Record<string, unknown>) => mcp!.client.callTool({ name, arguments: args });

    const loopback = await call('create', { workspaceId: 'lo', network: 'allow=127.0.0.1:7340' });
    expect(loopback.isError).toBe(true);
    expect(textOf(loopback)).toContain('policy_denied');
    expect(textOf(loopback)).toContain("names the host's own or a private address (127.0.0.1:7340)");

    const listed = JSON.parse(cli(mcp.home, ['ls', '--json']).stdout) as { key_findings: unknown[] };
    expect(listed.key_findings.filter((f) => typeof f === 'object')).toEqual([]);

    const named = await call('create', { workspaceId: 'pub', network: 'allow=registry.npmjs.org' });
    expect(named.isError, textOf(named)).toBeFalsy();
    // The operator's CLI is not an agent.
    const operator = cli(mcp.home, ['create', '--workspace-id', 'op', '--network', 'allow=127.0.0.1:7340']);
    expect(operator.code, operator.stderr).toBe(0);
  }, 60_000);
});
