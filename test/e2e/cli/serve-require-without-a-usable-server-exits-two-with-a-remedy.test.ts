/**
 * HEADSPACE_SERVE=require never falls back to the in-process path: when no
 * server can be reached or started (here the serve directory is not private),
 * the call exits 2 (environment_error) naming the remedy, in text or --json,
 * and runs nothing. HEADSPACE_SERVE=auto runs the same call in-process.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('HEADSPACE_SERVE=require with no usable server', () => {
  it('exits 2 with the remedy, and auto runs the call in-process instead', () => {
    mkdirSync(join(home, 'serve'), { mode: 0o755 });
    const text = cli(home, ['create', '--workspace-id', 'w'], { HEADSPACE_SERVE: 'require' });
    expect(text.code).toBe(2);
    expect(text.stdout).toBe('');
    expect(text.stderr).toMatch(/^error: HEADSPACE_SERVE=require: .*serve is not a directory of this user's/);
    expect(text.stderr).toMatch(/\nhint: start one with `headspace serve`.*unset HEADSPACE_SERVE/);
    const json = cli(home, ['ls', '--json'], { HEADSPACE_SERVE: 'require' });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ code: 2, category: 'environment_error', reason: 'SERVE_UNAVAILABLE' });
    // Nothing ran: the workspace was never made.
    expect(cli(home, ['ls'], { HEADSPACE_SERVE: 'off' }).stdout).toContain('no workspaces');
    expect(cli(home, ['create', '--workspace-id', 'w'], { HEADSPACE_SERVE: 'auto' }).code).toBe(0);
  }, 60_000);
});
