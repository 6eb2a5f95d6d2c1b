/**
 * `batch --strategy` (#16) on the native provider: the same joins as on fake,
 * with real processes — and a cancelled loser is gone: no process of its
 * command is left on the host once the batch has returned.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { strategyCases } from '../../helpers/batch.js';
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
function loserProcesses(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\u000029.7\u0000';
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe.runIf(readiness.ready)(`each batch strategy on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  beforeAll(() => {
    const created = cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '2'], env);
    expect(created.code, created.stderr).toBe(0);
  });
  strategySuite(() => strategyCases(home, 'pool', env));
  it('leaves no process of a cancelled loser behind', () => {
    expect(loserProcesses()).toEqual([]);
  });
});
