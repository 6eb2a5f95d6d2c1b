/**
 * A server stops for a caller of another build, umask or engine environment
 * (its client starts a server of its own). Started by hand in the
 * foreground, it ended with exit 0 and no word (a new user, session 12).
 * Now it says why on its stderr, naming what differed.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { listening, startServe, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(async () => {
  cli(home, ['serve', '--stop']);
  await cleanup();
});

describe('a server started by hand, met by a caller of another environment', () => {
  it('says on its stderr that it stops and which variable differed', async () => {
    const served = startServe(home, ['--idle', '60']);
    await until(() => listening(home));
    const call = cli(home, ['ls'], { HEADSPACE_SERVE: 'auto', HEADSPACE_SUPERVISOR_IDLE_MS: '4321' });
    expect(call.code, call.stderr).toBe(0);
    expect(await served.exited).toBe(0);
    expect(served.stderr()).toContain('headspace serve: stopping: a call came with another environment (HEADSPACE_SUPERVISOR_IDLE_MS)');
  }, 60_000);
});
