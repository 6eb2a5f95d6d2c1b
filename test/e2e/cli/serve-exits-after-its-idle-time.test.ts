/** `headspace serve --idle S` exits 0 once S seconds pass with no request, removing its socket. */
import { afterAll, describe, expect, it } from 'vitest';
import { makeHome } from '../../helpers/cli.js';
import { listening, startServe, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('headspace serve --idle', () => {
  it('exits 0 after that long with no request, and its socket is gone', async () => {
    const served = startServe(home, ['--idle', '1']);
    await until(() => listening(home));
    expect(await served.exited).toBe(0);
    expect(listening(home)).toBe(false);
  }, 60_000);
});
