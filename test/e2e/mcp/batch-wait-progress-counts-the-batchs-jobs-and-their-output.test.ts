/**
 * Over MCP, batch-wait's progress notifications describe the batch, not its
 * first job: how many jobs are done, running and queued, and the bytes of
 * output they kept so far (the jobs run in the supervisor, so their logs are
 * measured). Every notification once named job-1 and said "0 bytes of
 * output so far", even after job-2 took over.
 */
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

const PRINTED = 'hello from a batch job\n';

describe("batch-wait's progress over MCP", () => {
  it("counts the batch's jobs by state and the output they printed", async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as unknown as ResultPackage;
    await call('create', { workspaceId: 'bp' });
    const job = { workspace: 'bp', command: ['echo', PRINTED.trim(), '&&', 'sleep', '2'] };
    const started = await call('batch', { strategy: 'all', jobs: [job, job] });
    const group = (started.key_findings.find((f) => typeof f === 'object' && f.kind === 'batch') as { id: string }).id;

    const updates: Progress[] = [];
    const ended = await mcp.client.callTool({ name: 'batch-wait', arguments: { groupId: group } }, undefined, {
      timeout: 60_000,
      onprogress: (p) => updates.push(p),
    });
    expect((ended.structuredContent as unknown as ResultPackage).status).toBe('success');
    const messages = updates.map((u) => u.message!);
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages)
      expect(m).toMatch(new RegExp(`^batch ${group}: \\d done, \\d running, \\d queued: \\d+\\.\\d s elapsed, \\d+ bytes of output so far$`));
    // Once the first job is done and the second runs, both jobs' output is counted.
    const later = messages.find((m) => m.includes('1 done, 1 running'));
    expect(later).toBeDefined();
    expect(Number(/(\d+) bytes/.exec(later!)![1])).toBeGreaterThanOrEqual(Buffer.byteLength(PRINTED));
  }, 60_000);
});
