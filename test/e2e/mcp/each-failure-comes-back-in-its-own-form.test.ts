/**
 * Three different things can go wrong, and a client must be able to tell
 * them apart without parsing prose:
 *  - the job ran and failed: a normal tool result whose package says failure;
 *  - the verb refused (here: a policy it cannot satisfy): a tool error result
 *    (isError) naming the category, the exit code and a remediation;
 *  - the call is malformed (wrong argument type, unknown argument, unknown
 *    tool): a JSON-RPC protocol error -32602, and nothing ran.
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio({ provider: 'fake' });
  const created = await mcp.client.callTool({ name: 'create', arguments: { workspaceId: 'demo' } });
  expect(created.isError, textOf(created)).toBeFalsy();
});
afterAll(() => mcp?.close());

async function protocolError(name: string, args: Record<string, unknown>): Promise<McpError> {
  const error = await mcp.client.callTool({ name, arguments: args }).then(
    (result) => new Error(`expected a protocol error, got a result: ${JSON.stringify(result)}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('failures over MCP', () => {
  it('returns a failing job as a normal result whose package says failure', async () => {
    const result = await mcp.client.callTool({ name: 'run', arguments: { workspaceId: 'demo', argv: ['fail', '3'] } });
    expect(result.isError).toBeFalsy();
    const pkg = result.structuredContent as unknown as ResultPackage;
    expect(pkg.status).toBe('failure');
    expect(pkg.provenance.exit_code).toBe(3);
    expect(textOf(result)).toContain('failed with exit status 3');
  });

  it('returns a policy refusal as a tool error naming category, exit code and remediation', async () => {
    const result = await mcp.client.callTool({ name: 'create', arguments: { workspaceId: 'open', network: 'enabled' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(textOf(result)).toMatch(/^error: policy_denied \(exit 3, POLICY_DENIED\): .*network/);
    expect(textOf(result)).toMatch(/\nhint: \S/);
    expect(result._meta?.['headspace/error']).toMatchObject({ code: 3, category: 'policy_denied', reason: 'POLICY_DENIED', remediation: expect.any(String) });
    // Refused before anything existed.
    const ls = await mcp.client.callTool({ name: 'ls', arguments: { all: true } });
    expect(JSON.stringify(ls.structuredContent)).not.toContain('open');
  });

  it('returns a user error from the engine (an unknown workspace) as a tool error too', async () => {
    const result = await mcp.client.callTool({ name: 'inspect', arguments: { handle: 'no-such-workspace' } });
    expect(result.isError).toBe(true);
    expect(result._meta?.['headspace/error']).toMatchObject({ code: 1, category: 'user_error' });
  });

  it('rejects a wrong argument type as protocol error -32602 naming the field', async () => {
    const error = await protocolError('run', { workspaceId: 'demo', argv: 'echo hi' });
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('argv');
    expect(error.data).toMatchObject({ tool: 'run', issues: [{ path: 'argv' }] });
    const logs = await mcp.client.callTool({ name: 'inspect', arguments: { handle: 'demo' } });
    expect(textOf(logs)).toContain('1 job(s)'); // only the failing job above ran
  });

  it('rejects an unknown argument and an unknown tool as protocol errors -32602', async () => {
    expect((await protocolError('create', { workspaceId: 'x', netwrok: 'enabled' })).code).toBe(-32602);
    expect((await protocolError('no-such-tool', {})).code).toBe(-32602);
  });

  it('names the keys a tool takes when it was given one it does not take', async () => {
    // inspect takes handle: a model that passed workspaceId learnt only that the key was wrong (new user).
    const error = await protocolError('inspect', { workspaceId: 'demo' });
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/; inspect takes: handle(, \w+)*$/);
  });
});
