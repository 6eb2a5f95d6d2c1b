/**
 * The MCP stop tool takes a jobId (#12 item 8): in a workspace created with
 * concurrency 2, two run calls are in flight at once over one session;
 * `stop {"workspaceId", "jobId", "apply": true}` ends that job alone (its run
 * call returns cancelled) and the other run call is still in flight.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('the stop tool with a jobId', () => {
  it('ends one of two jobs at once and leaves the other running', async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as unknown as ResultPackage;
    await call('create', { workspaceId: 'pair', budget: { concurrency: 2 } });
    const ended = new Set<string>();
    const first = call('run', { workspaceId: 'pair', jobId: 'job-one', argv: ['block'] }).finally(() => ended.add('job-one'));
    const second = call('run', { workspaceId: 'pair', jobId: 'job-two', argv: ['block'] }).finally(() => ended.add('job-two'));
    for (let i = 0; i < 200; i++) {
      const preview = await call('stop', { workspaceId: 'pair' });
      if (preview.outcome_summary.startsWith('jobs job-one, job-two are running')) break;
      await new Promise((r) => setTimeout(r, 50));
    }

    const stopped = await call('stop', { workspaceId: 'pair', jobId: 'job-one', apply: true, graceSeconds: 0 });
    expect(stopped.status).toBe('cancelled');
    expect(stopped.provenance.job_id).toBe('job-one');
    expect((await first).status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 300));
    expect(ended.has('job-two')).toBe(false);
    expect((await call('inspect', { handle: 'job-two' })).status).toBe('running');

    await call('stop', { workspaceId: 'pair', apply: true, graceSeconds: 0 });
    expect((await second).status).toBe('cancelled');
  }, 60_000);
});
