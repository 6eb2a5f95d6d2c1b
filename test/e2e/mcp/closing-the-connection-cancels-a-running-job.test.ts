/**
 * When the client goes away mid-run (stdin closes), the server does not
 * orphan the job: the in-flight run is aborted, the job is recorded
 * cancelled and the workspace is ready again before the process exits.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, assertBuilt, cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('closing the stdio connection during a run', () => {
  it('records the running job as cancelled before the server exits', async () => {
    assertBuilt();
    expect(cli(home, ['create', '--workspace-id', 'busy']).code).toBe(0);
    const child = spawn(BIN, ['mcp'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' },
    });
    try {
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'run', arguments: { workspaceId: 'busy', jobId: 'job-block', argv: ['block'] } } });
      // Wait until the job is recorded running, then hang up.
      for (let i = 0; i < 100 && !cli(home, ['inspect', 'busy']).stdout.includes('lifecycle state: running'); i++) await new Promise((r) => setTimeout(r, 100));
      child.stdin.end();
      expect(await exit).toBe(0);
      const job = JSON.parse(cli(home, ['inspect', 'job-block', '--json']).stdout) as { status: string };
      expect(job.status).toBe('cancelled');
      expect(cli(home, ['inspect', 'busy']).stdout).toContain('lifecycle state: ready');
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
