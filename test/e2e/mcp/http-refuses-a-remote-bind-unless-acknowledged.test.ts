/**
 * `headspace mcp --http --host ADDRESS` beyond loopback is refused (exit 1,
 * naming the risk and --allow-remote) instead of silently turning the Host
 * check off; with --allow-remote it serves and warns on stderr (#12 item 21).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { startHttp } from '../../helpers/mcp.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a bind beyond loopback', () => {
  it('is refused without --allow-remote', () => {
    const run = cli(home, ['mcp', '--http', '--port', '0', '--host', '0.0.0.0']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is not a loopback address');
    expect(run.stderr).toContain('--allow-remote');
  });

  it('serves, with a warning, when acknowledged', async () => {
    const server = await startHttp({ args: ['--host', '0.0.0.0', '--allow-remote'] });
    try {
      expect(server.stderr()).toContain('warning (--allow-remote)');
      const client = await server.connect();
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await server.close();
    }
  });
});
