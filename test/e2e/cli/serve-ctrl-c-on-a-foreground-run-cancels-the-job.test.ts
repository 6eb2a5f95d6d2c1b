/**
 * Ctrl-C on a foreground run through `headspace serve` reaches the call in
 * the server: the client forwards SIGINT, the job ends cancelled (exit 5),
 * as in-process, and is not left running.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { baseEnv, until } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('SIGINT to a foreground run through headspace serve', () => {
  it('ends the job cancelled with exit 5', async () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const child = spawn(BIN, ['run', '--json', 'w', 'block'], { env: baseEnv(home, { HEADSPACE_SERVE: 'require' }) });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
    await until(() => cli(home, ['ls', '--json'], { HEADSPACE_SERVE: 'off' }).stdout.includes('"running"'));
    child.kill('SIGINT');
    expect(await exited).toBe(5);
    expect((JSON.parse(stdout) as { status: string }).status).toBe('cancelled');
    expect(cli(home, ['ls', '--json'], { HEADSPACE_SERVE: 'off' }).stdout).not.toContain('"running"');
  }, 60_000);
});
