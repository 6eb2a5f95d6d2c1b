/**
 * Over MCP (#16 item 5): the batch tool never blocks on its jobs — it
 * returns the group id at once (status running) and a detached process
 * drives the batch — and batch-wait is bounded (a timeout leaves the batch
 * running) and, once the join has decided, returns its result with the
 * winner marked and the loser cancelled.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

describe('the batch tools over MCP', () => {
  it('start a batch that outlives the call and wait for its join', async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as unknown as ResultPackage;
    await call('create', { workspaceId: 'pool', budget: { concurrency: 2 } });
    const started = await call('batch', {
      strategy: 'race',
      concurrency: 2,
      jobs: [
        { workspace: 'pool', command: ['sleep', '1'], name: 'fast' },
        { workspace: 'pool', command: 'block', name: 'stuck' },
      ],
    });
    expect(started.status).toBe('running');
    const group = (started.key_findings.find((f) => typeof f === 'object' && f.kind === 'batch') as { id: string }).id;
    expect(group).toMatch(/^bg-/);
    expect(started.attention.some((a) => a.action?.verb === 'batch-wait')).toBe(true);

    const early = await call('batch-wait', { groupId: group, timeoutSeconds: 0 });
    expect(early.status).toBe('timeout');

    const ended = await call('batch-wait', { groupId: group });
    expect(ended.status).toBe('success');
    const lines = ended.key_findings.filter((f) => typeof f === 'object' && f.kind === 'job').map((f) => (f as { text: string }).text);
    expect(lines[0]).toMatch(/^fast \[winner\]: success/);
    expect(lines[1]).toMatch(/^stuck: cancelled/);
  }, 60_000);
});
