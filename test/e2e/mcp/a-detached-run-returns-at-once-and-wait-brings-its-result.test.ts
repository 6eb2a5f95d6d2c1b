/**
 * Over MCP (#15 item 6): run with detach returns at once (status running)
 * and the job outlives the call; the wait tool is bounded (timeoutSeconds:
 * status timeout, the job runs on) and, once the job has ended, returns its
 * result: here cancelled by the stop tool.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('a detached run over MCP', () => {
  it('returns running at once, outlives the call, and wait returns its result', async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as unknown as ResultPackage;
    await call('create', { workspaceId: 'bg' });
    const started = await call('run', { workspaceId: 'bg', jobId: 'bg-job', argv: ['block'], detach: true });
    expect(started.status).toBe('running');
    expect(started.attention.some((a) => a.action?.verb === 'wait')).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect((await call('inspect', { handle: 'bg-job' })).status).toBe('running');

    const early = await call('wait', { jobIds: 'bg-job', timeoutSeconds: 0.2 });
    expect(early.status).toBe('timeout');
    expect((await call('inspect', { handle: 'bg-job' })).status).toBe('running');

    expect((await call('stop', { workspaceId: 'bg', jobId: 'bg-job', apply: true, graceSeconds: 0 })).status).toBe('cancelled');
    const ended = await call('wait', { jobIds: ['bg-job'] });
    expect(ended.status).toBe('cancelled');
    expect(ended.provenance.job_id).toBe('bg-job');
  }, 60_000);
});
