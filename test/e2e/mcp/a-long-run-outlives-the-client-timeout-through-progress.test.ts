/**
 * A run longer than the official SDK client's default request timeout (60 s)
 * completes when the client asks for progress and lets it reset the timeout
 * (`onprogress` + `resetTimeoutOnProgress: true`): the server sends progress
 * notifications (elapsed seconds, output bytes so far) while the job runs.
 * The same call without `resetTimeoutOnProgress` still times out at 60 s,
 * which is the client's documented behaviour, not ours. Both calls run side
 * by side, so the file costs one ~70 s job of real wall time.
 */
import { DEFAULT_REQUEST_TIMEOUT_MSEC } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultPackage } from '../../../src/core/result/result-package.js';
import { connectStdio, type McpHandle } from '../../helpers/mcp.js';

const JOB_SECONDS = 70;
let mcp: McpHandle;

beforeAll(async () => {
  mcp = await connectStdio();
  for (const id of ['kept-alive', 'timed-out']) await mcp.client.callTool({ name: 'create', arguments: { workspaceId: id } });
});
afterAll(async () => {
  await mcp?.close();
});

describe("a run longer than the client's default request timeout", () => {
  it('succeeds with resetTimeoutOnProgress, and times out without it', async () => {
    expect(DEFAULT_REQUEST_TIMEOUT_MSEC).toBe(60_000);
    expect(JOB_SECONDS * 1000).toBeGreaterThan(DEFAULT_REQUEST_TIMEOUT_MSEC);
    const updates: Progress[] = [];
    const started = Date.now();
    const keptAlive = mcp.client.callTool(
      { name: 'run', arguments: { workspaceId: 'kept-alive', argv: ['echo', 'warming up', '&&', 'sleep', String(JOB_SECONDS), '&&', 'echo', 'done'] } },
      undefined,
      {
        onprogress: (p) => updates.push(p),
        resetTimeoutOnProgress: true,
      },
    );
    const timedOut = mcp.client.callTool({ name: 'run', arguments: { workspaceId: 'timed-out', argv: ['sleep', String(JOB_SECONDS)] } }, undefined, {
      onprogress: () => {},
    });

    await expect(timedOut).rejects.toThrow(/timed out/i);
    const result = await keptAlive;
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThan(JOB_SECONDS * 1000);
    expect(result.isError).toBeFalsy();
    expect((result.structuredContent as unknown as ResultPackage).status).toBe('success');

    // Progress rises strictly, comes at least every 10 s, and names the job's elapsed time and output so far.
    expect(updates.length).toBeGreaterThanOrEqual(Math.floor(JOB_SECONDS / 10));
    for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
    expect(updates.at(-1)!.progress).toBeGreaterThan(JOB_SECONDS - 10);
    expect(updates.at(-1)!.message).toMatch(/^job \S+ running: \d+\.\d s elapsed, 11 bytes of output so far$/);
  }, 120_000);
});
