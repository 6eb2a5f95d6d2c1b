/**
 * Over MCP an agent waits for a job instead of polling it: it subscribes to
 * the job, a claim with waitSeconds blocks while the job runs (a run call in
 * flight on the same session) and returns its one event when it ends; ack
 * settles it, and a second ack reads duplicate. The webhook arguments are not
 * offered over MCP.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('events over MCP', () => {
  it('subscribe, a waiting claim, ack, and a duplicate ack', async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as unknown as ResultPackage;
    const { tools } = await mcp.client.listTools();
    const subscribeTool = tools.find((t) => t.name === 'events-subscribe')!;
    expect(Object.keys(subscribeTool.inputSchema.properties ?? {})).not.toContain('webhook');

    await call('create', { workspaceId: 'w' });
    const subscribed = await call('events-subscribe', { jobId: 'job-wait', name: 'agent' });
    expect(subscribed.status).toBe('success');
    const claiming = call('events-claim', { subscriptionId: 'agent', waitSeconds: 30 });
    const ran = await call('run', { workspaceId: 'w', jobId: 'job-wait', argv: ['sleep', '0.5', '&&', 'fail', '2'] });
    expect(ran.status).toBe('failure');
    const claimed = await claiming;
    const events = claimed.key_findings.filter((f) => typeof f !== 'string' && f.kind === 'event') as Array<{ id: string; name: string; job_id: string }>;
    expect(events.map((e) => [e.job_id, e.name])).toEqual([['job-wait', 'job.failed']]);
    const acked = await call('events-ack', { subscriptionId: 'agent', eventIds: [events[0]!.id] });
    expect(acked.outcome_summary).toBe('acknowledged 1 event(s)');
    const again = await call('events-ack', { subscriptionId: 'agent', eventIds: [events[0]!.id] });
    expect(again.outcome_summary).toContain('1 duplicate');
  }, 60_000);
});
