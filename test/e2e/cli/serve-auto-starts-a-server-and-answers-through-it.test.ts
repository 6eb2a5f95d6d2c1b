/**
 * HEADSPACE_SERVE=auto: with no server listening, the CLI starts a detached
 * `headspace serve` for the home, waits for its socket and is answered by
 * it; the next call reuses it. The answer is the in-process one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { listening, serversOf } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('HEADSPACE_SERVE=auto with no server', () => {
  it('starts one, is answered by it, and the next call is answered by the same one', () => {
    const inProcess = cli(home, ['ls'], { HEADSPACE_SERVE: 'off' });
    expect(listening(home)).toBe(false);
    const first = cli(home, ['ls'], { HEADSPACE_SERVE: 'auto' });
    expect(first).toEqual(inProcess);
    expect(listening(home)).toBe(true);
    const [server] = serversOf(home);
    expect(server).toBeDefined();
    expect(cli(home, ['ls'], { HEADSPACE_SERVE: 'auto' })).toEqual(inProcess);
    expect(serversOf(home)).toEqual([server]);
  }, 60_000);
});
