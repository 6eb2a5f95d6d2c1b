/**
 * The snapshot verbs as MCP tool calls (#14) against the real built server,
 * on the fake: checkpoint and restore, fork, diff, seal, settle select, and
 * a second settle coming back as a tool error naming the first decision.
 * review-policy is not a tool: the merge gate is set by a person.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';
import { idAfter as idOf } from '../../helpers/snapshots.js';

let mcp: McpHandle;
beforeAll(async () => {
  mcp = await connectStdio({ provider: 'fake' });
});
afterAll(() => mcp?.close());

async function call(name: string, args: Record<string, unknown>): Promise<ResultPackage> {
  const result = await mcp.client.callTool({ name, arguments: args });
  expect(result.isError, `${name}: ${textOf(result)}`).toBeFalsy();
  return result.structuredContent as unknown as ResultPackage;
}
const idAfter = (pkg: ResultPackage, kind: 'checkpoint' | 'output') => idOf(pkg.key_findings, kind);

describe('the snapshot tools', () => {
  it('checkpoint, restore, fork, diff, seal and settle once, as tool calls', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('review-policy');

    await call('create', { workspaceId: 'p' });
    await call('run', { workspaceId: 'p', argv: ['write', 'a.txt', 'one'] });
    const cp = idAfter(await call('checkpoint', { workspaceId: 'p', label: 'one' }), 'checkpoint');
    await call('run', { workspaceId: 'p', argv: ['write', 'a.txt', 'two'] });
    await call('restore', { workspaceId: 'p', checkpointId: cp });
    expect((await call('diff', { workspaceId: 'p', from: cp })).outcome_summary).toContain('has not changed since checkpoint');

    await call('fork', { workspaceId: 'p', workspaceIds: ['c'] });
    await call('run', { workspaceId: 'c', argv: ['write', 'a.txt', 'better'] });
    const diff = await call('diff', { workspaceId: 'c', patch: true });
    expect(diff.evidence[0]!.excerpt).toContain('+better');
    const out = idAfter(await call('seal', { workspaceId: 'c' }), 'output');
    expect((await call('settle', { outputId: out, decision: 'select' })).status).toBe('success');

    const again = await mcp.client.callTool({ name: 'settle', arguments: { outputId: out, decision: 'select' } });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toContain('already settled: select');
  });
});
