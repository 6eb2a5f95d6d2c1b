/**
 * A workspace id held by a workspace that never became ready (a create
 * killed after the provider call, or one that failed) refuses a second
 * create with a hint that says how to free the id — `headspace destroy ID`
 * — and that destroy does free it (#12 item 11).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('an id held by an unfinished workspace', () => {
  it('names the destroy that frees it', () => {
    const killed = cli(home, ['create', '--workspace-id', 'x'], { HEADSPACE_TEST_CRASH_AT: 'create:after-provider-call' });
    expect(killed.code).not.toBe(0);
    const again = cli(home, ['create', '--workspace-id', 'x']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('error: workspace x already exists (provisioning)');
    expect(again.stderr).toMatch(/hint: .*headspace destroy x`$/m);
    expect(cli(home, ['destroy', 'x']).code).toBe(0);
    expect(cli(home, ['create', '--workspace-id', 'x']).code).toBe(0);
  });
});
