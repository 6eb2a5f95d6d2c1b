/**
 * `fork` of a workspace past its TTL is refused as `run` refuses it (exit 2,
 * WORKSPACE_EXPIRED, naming when it expired), before anything is made. A
 * child inherits its parent's expiry, so the fork was once created and said
 * ready, already expired: its first run was then refused.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a fork of an expired workspace', () => {
  it('is refused with exit 2 and WORKSPACE_EXPIRED, and no child is made', async () => {
    expect(cli(home, ['create', '--workspace-id', 't2', '--ttl', '1']).code).toBe(0);
    await new Promise((r) => setTimeout(r, 1500));
    const fork = cli(home, ['fork', 't2', '--workspace-id', 't2f', '--json']);
    expect(fork.code, fork.stderr).toBe(2);
    const error = JSON.parse(fork.stderr.trim().split('\n').pop()!) as { reason: string; message: string };
    expect(error.reason).toBe('WORKSPACE_EXPIRED');
    expect(error.message).toMatch(/^workspace t2 expired at \S+; nothing was forked/);
    // The same refusal run gives, code for code.
    const run = cli(home, ['run', '--json', 't2', 'true']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr.trim().split('\n').pop()!)).toMatchObject({ reason: 'WORKSPACE_EXPIRED' });
    const ls = cli(home, ['ls', '--json']);
    expect(ls.stdout).not.toContain('t2f');
  });
});
