/**
 * A client that cancels a run call (notifications/cancelled, which the SDK
 * sends when the call's AbortSignal fires) cancels the job it started (#15
 * item 6): the job is recorded cancelled by the MCP client, the workspace is
 * ready again, and the server keeps serving.
 */
import { describe, expect, it } from 'vitest';
import { cli } from '../../helpers/cli.js';
import { connectStdio } from '../../helpers/mcp.js';

describe('a cancelled run call', () => {
  it('records its job as cancelled by the MCP client and leaves the server serving', async () => {
    const handle = await connectStdio({ provider: 'fake' });
    const home = handle.home;
    try {
      expect(cli(home, ['create', '--workspace-id', 'cancel-me'], { HEADSPACE_PROVIDER: 'fake' }).code).toBe(0);
      const abort = new AbortController();
      const call = handle.client.callTool({ name: 'run', arguments: { workspaceId: 'cancel-me', jobId: 'job-cancelled', argv: ['block'] } }, undefined, {
        signal: abort.signal,
      });
      const settled = call.then(
        () => 'answered',
        () => 'rejected',
      );
      for (let i = 0; i < 100 && !cli(home, ['inspect', 'cancel-me']).stdout.includes('lifecycle state: running'); i++)
        await new Promise((r) => setTimeout(r, 100));
      abort.abort();
      // The client side rejects at once; the server side ends the job on the notification.
      expect(await settled).toBe('rejected');
      let job = { status: 'running', provenance: {} as Record<string, unknown>, outcome_summary: '' };
      for (let i = 0; i < 100 && job.status === 'running'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        job = JSON.parse(cli(home, ['inspect', 'job-cancelled', '--json']).stdout) as typeof job;
      }
      expect(job.status).toBe('cancelled');
      expect(job.outcome_summary).toContain('cancelled by the MCP client');
      expect(cli(home, ['inspect', 'cancel-me']).stdout).toContain('lifecycle state: ready');
      // The server still answers.
      const listed = await handle.client.callTool({ name: 'ls', arguments: {} });
      expect(listed.isError ?? false).toBe(false);
    } finally {
      await handle.close();
    }
  }, 30_000);
});
