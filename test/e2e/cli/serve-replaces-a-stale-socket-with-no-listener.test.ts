/**
 * A server killed with SIGKILL leaves its socket file behind with nobody
 * listening. The next `headspace serve` replaces it instead of refusing, and
 * a live server's socket is never taken over.
 */
import { lstatSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { listening, socketOf, startServe, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('headspace serve after a server was killed', () => {
  it('replaces the socket left behind, and refuses to take over a live one', async () => {
    const first = startServe(home);
    await until(() => listening(home));
    first.child.kill('SIGKILL');
    await first.exited;
    expect(lstatSync(socketOf(home)).isSocket()).toBe(true);

    const second = startServe(home);
    await until(() => second.stdout().includes('listening'));
    const again = cli(home, ['serve']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already listens');
    expect(cli(home, ['serve', '--stop']).code).toBe(0);
    expect(await second.exited).toBe(0);
  }, 60_000);
});
