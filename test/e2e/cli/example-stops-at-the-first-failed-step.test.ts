/**
 * The worked example (`npm run example`) stops at the first step that does
 * not end with the exit code it expects, with that step's code, instead of
 * printing every later step's failure too and ending as if all was well
 * (#12 item 12). Run on the fake provider, which has no python3: the second
 * step fails (127 → exit 6), so nothing after it runs. The set-up half of
 * the example (npm ci, apt, the build) is not run here: only its steps.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, assertBuilt, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('the worked example script', () => {
  it('stops at the first failed step with its exit code', () => {
    assertBuilt();
    const run = spawnSync('bash', [join(REPO, 'scripts', 'example-steps.sh')], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: 'fake' },
      timeout: 60_000,
    });
    expect(run.status, run.stderr).toBe(6);
    expect(run.stdout).toContain('$ headspace create');
    expect(run.stdout).toContain('$ headspace run --job-id job-pi');
    expect(run.stdout).not.toContain('$ headspace export');
    expect(run.stdout).not.toContain('every step ended as expected');
    expect(run.stderr).toContain('example: stopped: `headspace run` exited 6 where 0 was expected');
  });
});
