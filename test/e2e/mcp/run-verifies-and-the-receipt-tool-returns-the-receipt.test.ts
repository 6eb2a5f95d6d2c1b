/**
 * Over MCP (#16): run takes a verification contract (verify, expectFiles,
 * expectOutput) and comes back inconclusive or failure by the engine's
 * verdict; the receipt tool returns the job's receipt with the digest run
 * named, and writes a receipt file only under the server's roots; create takes rules, whose refusal is a tool error naming
 * policy_denied; and the rules verb is not a tool (the supervised agent
 * cannot lift its own supervision).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, textOf, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('verification, receipts and rules over MCP', () => {
  it('judges run checks, returns receipts and refuses a denied command', async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) => mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
    const pkg = async (name: string, args: Record<string, unknown>) => (await call(name, args)).structuredContent as unknown as ResultPackage;

    await pkg('create', { workspaceId: 'checked', rules: ['deny-command:rm'] });
    const fault = await pkg('run', { workspaceId: 'checked', argv: ['echo', 'PASS'], verify: [['no-such-checker']] });
    expect(fault.status).toBe('inconclusive');
    const failed = await pkg('run', { workspaceId: 'checked', argv: ['echo', 'verified'], expectFiles: [{ path: 'proof.txt' }], expectOutput: ['verified'] });
    expect(failed.status).toBe('failure');
    expect(failed.provenance.verification!.checks.map((c) => c.outcome)).toEqual(['passed', 'failed']);

    const receipt = await pkg('receipt', { jobId: failed.provenance.job_id });
    expect(receipt.provenance.receipt_sha256).toBe(failed.provenance.receipt_sha256);
    expect(receipt.evidence[0]!.excerpt).toContain('"status":"failure"');

    const outside = await call('receipt', { jobId: failed.provenance.job_id, out: '/tmp/headspace-receipt-outside-the-roots.json' });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toContain('policy_denied');

    const denied = await call('run', { workspaceId: 'checked', argv: ['rm', '-rf', 'x'] });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('policy_denied');
    expect(textOf(denied)).toContain('deny-command:rm');

    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name)).not.toContain('rules');
  }, 60_000);
});
