/**
 * `headspace mcp` is long-running: it answers requests for as long as stdin
 * is open, writes nothing but JSON-RPC messages on stdout (diagnostics go to
 * stderr), and exits 0 once the client closes stdin.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, assertBuilt, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('the stdio server', () => {
  it('answers while stdin is open, prints only protocol messages, and exits 0 when stdin closes', async () => {
    assertBuilt();
    const child = spawn(BIN, ['mcp'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' },
    });
    try {
      let stdout = '';
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const answered = (count: number) =>
        new Promise<void>((resolve) => {
          const check = () => {
            if (stdout.split('\n').filter((l) => l.trim() !== '').length >= count) resolve();
          };
          child.stdout.on('data', (chunk: Buffer) => {
            stdout += chunk.toString();
            check();
          });
        });
      const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ls', arguments: {} } });
      await answered(2);
      expect(child.exitCode).toBeNull(); // still serving
      const lines = stdout.split('\n').filter((l) => l.trim() !== '');
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual([1, 2]);
      child.stdin.end();
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
