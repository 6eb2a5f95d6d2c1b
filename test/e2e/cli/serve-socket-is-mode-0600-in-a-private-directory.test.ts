/**
 * `headspace serve` (#20) listens on HEADSPACE_HOME/serve/sock: a socket of
 * mode 0600 in a directory of mode 0700, both this user's, so only this user
 * (and root) can connect and hand it a call with their environment.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { listening, startServe, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('headspace serve', () => {
  it('listens on a socket of mode 0600 in a directory of mode 0700, both owned by this user', async () => {
    const served = startServe(home, ['--json']);
    await until(() => listening(home) && served.stdout().includes('\n'));
    const status = JSON.parse(served.stdout()) as { status: string; socket: string; pid: number; idle_seconds: number };
    expect(status).toMatchObject({ status: 'listening', socket: join(home, 'serve', 'sock'), idle_seconds: 300 });
    const dir = lstatSync(join(home, 'serve'));
    const sock = lstatSync(join(home, 'serve', 'sock'));
    expect(dir.isDirectory() && (dir.mode & 0o777) === 0o700 && dir.uid === process.getuid!()).toBe(true);
    expect(sock.isSocket() && (sock.mode & 0o777) === 0o600 && sock.uid === process.getuid!()).toBe(true);
    expect(cli(home, ['serve', '--stop']).stdout).toBe('headspace serve: stopped\n');
    expect(await served.exited).toBe(0);
  }, 60_000);
});
