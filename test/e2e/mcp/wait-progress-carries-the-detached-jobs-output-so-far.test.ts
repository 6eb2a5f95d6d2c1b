/**
 * Over MCP, wait's progress notifications carry the output the waited job
 * has kept so far (#15 review): the job runs in the shared supervisor, so no
 * output event reaches the server's engine, and progress used to say
 * "0 bytes of output so far" while the job printed. wait now reads each
 * running job's kept log and progress reports its size.
 */
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

let mcp: McpHandle | undefined;
afterAll(async () => mcp?.close());

/** Longer than one progress heartbeat (5 s), so at least one notification goes out while the job runs. */
const JOB_SECONDS = 7;
const PRINTED = 'hello from the job\n';

describe("wait's progress over MCP", () => {
  it('reports the bytes the detached job has printed so far, not 0', async () => {
    mcp = await connectStdio();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await mcp!.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as unknown as ResultPackage;
    await call('create', { workspaceId: 'pw' });
    const started = await call('run', { workspaceId: 'pw', jobId: 'pw-job', argv: ['echo', PRINTED.trim(), '&&', 'sleep', String(JOB_SECONDS)], detach: true });
    expect(started.status).toBe('running');

    const updates: Progress[] = [];
    const ended = await mcp.client.callTool({ name: 'wait', arguments: { jobIds: 'pw-job' } }, undefined, {
      timeout: 60_000,
      onprogress: (p) => updates.push(p),
    });
    expect((ended.structuredContent as unknown as ResultPackage).status).toBe('success');
    expect(updates.length).toBeGreaterThan(0);
    const last = updates.at(-1)!.message!;
    expect(last).toMatch(/^job pw-job running: \d+\.\d s elapsed, \d+ bytes of output so far$/);
    expect(Number(/(\d+) bytes/.exec(last)![1])).toBe(Buffer.byteLength(PRINTED));
  }, 60_000);
});
