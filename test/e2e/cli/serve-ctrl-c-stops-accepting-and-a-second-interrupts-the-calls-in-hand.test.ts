/**
 * Ctrl-C on a foreground `headspace serve` stops it accepting (its socket
 * goes) and lets the calls in hand finish; a second Ctrl-C interrupts them
 * as their callers' Ctrl-C would: a foreground run ends cancelled (exit 5)
 * with its result, and the server exits 0.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { baseEnv, listening, startServe, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('Ctrl-C on headspace serve', () => {
  it('stops accepting, then a second one ends the call in hand as cancelled', async () => {
    expect(cli(home, ['create', '--workspace-id', 'w'], { HEADSPACE_SERVE: 'off' }).code).toBe(0);
    const served = startServe(home);
    await until(() => listening(home) && served.stdout().includes('listening'));
    const run = spawn(BIN, ['run', '--json', 'w', 'block'], { env: baseEnv(home, { HEADSPACE_SERVE: 'require' }) });
    let stdout = '';
    run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const runExited = new Promise<number | null>((r) => run.once('close', (code) => r(code)));
    await until(() => cli(home, ['ls', '--json'], { HEADSPACE_SERVE: 'off' }).stdout.includes('"running"'));
    served.child.kill('SIGINT');
    await until(() => !listening(home));
    expect(served.child.exitCode).toBeNull();
    served.child.kill('SIGINT');
    expect(await runExited).toBe(5);
    expect((JSON.parse(stdout) as { status: string }).status).toBe('cancelled');
    expect(await served.exited).toBe(0);
  }, 60_000);
});
