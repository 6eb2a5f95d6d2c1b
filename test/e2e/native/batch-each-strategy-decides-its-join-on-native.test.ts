/**
 * `batch --strategy` (#16) on the native provider: the same joins as on fake,
 * with real processes — and a cancelled loser is gone: no process of its
 * command is left on the host once the batch has returned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { hostProcesses, strategyCases } from '../../helpers/batch.js';
import { strategySuite } from '../../helpers/batch-strategy-suite.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'pool', '--force'], env);
  await cleanup();
});

/** Host processes running the losers' command (`sleep 29.7`, used by no other test). */
const loserProcesses = () => hostProcesses((argv) => argv.join(' ') === 'sleep 29.7 ');

describe.runIf(readiness.ready)(`each batch strategy on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  beforeAll(() => {
    const created = cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '2'], env);
    expect(created.code, created.stderr).toBe(0);
  });
  strategySuite(() => strategyCases(home, 'pool', env));
  it('leaves no process of a cancelled loser behind', () => {
    expect(loserProcesses()).toEqual([]);
  });
  it('sees a running loser command with the same look, so the empty list above is not blindness', async () => {
    const started = cli(home, ['run', '--detach', '--job-id', 'seen', 'pool', 'sleep', '29.7'], env);
    expect(started.code, started.stderr).toBe(0);
    let seen: number[] = [];
    for (let i = 0; i < 200 && seen.length === 0; i++) {
      seen = loserProcesses();
      if (seen.length === 0) await new Promise((r) => setTimeout(r, 25));
    }
    expect(seen.length).toBeGreaterThan(0);
    expect(cli(home, ['stop', 'pool', '--job-id', 'seen', '--apply', '--grace-seconds', '0'], env).code).toBe(5);
  });
});
