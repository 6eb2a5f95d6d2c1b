/**
 * `batch --detach` returns while its driver process is still starting: the
 * result names that driver (its pid) and never says the batch has no live
 * driver, and an immediate status agrees. It once said "its driver is gone:
 * batch-wait adopts it" on every detached start.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { groupIdOf, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a detached batch', () => {
  it('names its starting driver in its first result and an immediate status', () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    for (let i = 0; i < 3; i++) {
      const started = runBatch(home, ['--strategy', 'all', '--detach'], [{ workspace: 'w', command: 'sleep 1' }]);
      expect(started.code, started.stderr).toBe(0);
      expect(started.stdout).not.toContain('driver is gone');
      expect(started.stdout).toMatch(/driver pid \d+/);
      // One way to its result, once (it was suggested twice).
      expect((started.pkg!.attention as Array<{ action?: { verb: string } }>).filter((a) => a.action?.verb === 'batch-wait')).toHaveLength(1);
      const group = groupIdOf(started.pkg!);
      expect(cli(home, ['batch', 'status', group]).stdout).not.toContain('driver is gone');
      expect(cli(home, ['batch', 'wait', group]).code).toBe(0);
    }
  }, 60_000);
});
