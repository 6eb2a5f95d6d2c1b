/**
 * `probe --last` with nothing recorded suggests the call that records a
 * report; on a provider that isolates nothing (the fake) that call is
 * refused (exit 3), so the suggestion names a provider that isolates
 * instead, never the refused `probe --all --provider fake`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('probe --last on the fake with nothing recorded', () => {
  it('suggests probing a provider that isolates, not the fake it would refuse', () => {
    for (const args of [['--provider', 'fake'], []]) {
      const run = cli(home, ['probe', '--last', ...args]);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain('no probe of every scenario');
      expect(run.stderr).toMatch(/hint: the fake provider isolates nothing.*headspace probe --all --provider native`/);
      expect(run.stderr).not.toMatch(/--provider fake`|probe --all`$/m);
    }
  });
});
