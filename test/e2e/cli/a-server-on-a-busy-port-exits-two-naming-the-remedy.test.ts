/**
 * `headspace ui --port P` (and `mcp --http --port P`) with P held by another
 * process is the host's state, not a bad flag: exit 2 (environment_error,
 * code PORT_IN_USE) with a remedy naming another --port and how to see who
 * holds it, before serving anything.
 */
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
let holder: Server;
let port: number;

beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  port = (holder.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => holder.close(resolve));
  await cleanup();
});

describe('a server on a busy port', () => {
  it('ui exits 2 with PORT_IN_USE and a remedy', () => {
    const out = cli(home, ['ui', '--port', String(port), '--json']);
    expect(out.code, out.stderr).toBe(2);
    const error = JSON.parse(out.stderr) as { code: number; reason: string; category: string; remediation: string };
    expect(error).toMatchObject({ code: 2, reason: 'PORT_IN_USE', category: 'environment_error' });
    expect(error.remediation).toContain('--port');
    expect(error.remediation).toContain(`sport = :${port}`);
  });

  it('is documented under exit code 2 in explain exit-codes', () => {
    expect(cli(home, ['explain', 'exit-codes']).stdout).toContain('PORT_IN_USE');
  });

  it('mcp --http exits 2 the same way', () => {
    const out = cli(home, ['mcp', '--http', '--port', String(port)], { HEADSPACE_MCP_TOKEN: 'a-token-long-enough-for-the-check-0123456789' });
    expect(out.code, out.stderr).toBe(2);
    expect(out.stderr).toContain('another process holds the port');
    expect(out.stderr).toContain('--port');
  });
});
