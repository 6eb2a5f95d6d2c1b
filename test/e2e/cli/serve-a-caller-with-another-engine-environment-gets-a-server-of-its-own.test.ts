/**
 * The engine reads a few variables from its process's environment
 * (HEADSPACE_PROVIDER, PATH, DOCKER_HOST, …), which a resident server cannot
 * change per call. A caller whose values differ from the server's is not
 * answered with the server's: the server exits and the client starts one
 * with its own environment, so the answer is the in-process one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { serversOf, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a caller whose engine environment differs from the server', () => {
  it("is answered by a server started with the caller's environment", async () => {
    expect(cli(home, ['ls'], { HEADSPACE_SERVE: 'auto' }).code).toBe(0);
    const [first] = serversOf(home);
    const env = { HEADSPACE_SUPERVISOR_IDLE_MS: '1234' };
    const expected = cli(home, ['ls', '--json'], { ...env, HEADSPACE_SERVE: 'off' });
    const answered = cli(home, ['ls', '--json'], { ...env, HEADSPACE_SERVE: 'require' });
    expect(answered.code).toBe(expected.code);
    expect(answered.stderr).toBe(expected.stderr);
    await until(() => !serversOf(home).includes(first!));
    expect(serversOf(home)).toHaveLength(1);
  }, 60_000);
});
