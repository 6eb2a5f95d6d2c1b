/**
 * `probe` never runs in `headspace serve`, even under HEADSPACE_SERVE=require:
 * its inherited-limits scenario sets its process's umask to 002 for a moment,
 * and in a server the files other callers' calls made meanwhile would get it
 * (red team, session 11). The call runs in the caller's process and starts
 * no server.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('probe under HEADSPACE_SERVE=require', () => {
  it("runs in the caller's process and starts no server", () => {
    const run = cli(home, ['probe', '--list'], { HEADSPACE_SERVE: 'require' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('containment scenarios');
    expect(existsSync(join(home, 'serve', 'sock'))).toBe(false);
  });
});
