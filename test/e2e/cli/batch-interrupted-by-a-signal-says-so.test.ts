/**
 * A foreground batch stopped by SIGTERM (or Ctrl-C's SIGINT) is cancelled
 * with its running jobs stopped, and its result says what happened: it was
 * interrupted by a signal, not "cancelled by batch cancel", and the losers'
 * gone time counts from the interrupt, not from a deciding job there was not.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome, serveModeEnv } from '../../helpers/cli.js';
import { writeSpec } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a foreground batch sent SIGTERM', () => {
  it('ends cancelled, saying it was interrupted by a signal', async () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const spec = writeSpec(home, [{ workspace: 'w', command: 'block', name: 'held' }]);
    const child = spawn(BIN, ['batch', '--strategy', 'all', '--spec', spec], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/root',
        HEADSPACE_HOME: home,
        HEADSPACE_PROVIDER: 'fake',
        ...serveModeEnv({}),
      },
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    // Signalled once its job runs (polled, never a fixed sleep).
    for (let i = 0; i < 400 && !cli(home, ['ls', '--json']).stdout.includes('"running"'); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGTERM');
    expect(await exited).toBe(5);
    expect(stdout).toContain('interrupted by a signal');
    expect(stdout).not.toContain('cancelled by batch cancel');
    expect(stdout).toMatch(/every loser gone \d+ ms after the interrupt/);
  }, 60_000);
});
