/**
 * On docker, as on native, `stop --apply` sends TERM, waits the grace so a
 * TERM handler can run, and the job's record keeps the handler's own exit
 * code. Two ways this failed (red team, session 19):
 *  - a job whose caller had died (its run's process killed, the exec left
 *    running) was stopped with no grace at all: its handler never ran;
 *  - the job's wrapper shell died of the TERM too, so the record said
 *    "signal SIGTERM" where the handler had exited 3.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, callEnv, cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const env = dockerCliEnv();
afterAll(async () => {
  if (readiness.ready) cli(home, ['destroy', 'handled', '--force'], env);
  await cleanup();
});

/** A job that traps TERM: after a second it writes `cleaned` and exits 3. It writes `ready` once its trap is set. */
const HANDLER = 'trap "sleep 1; echo cleaned > /workspace/cleaned; exit 3" TERM; rm -f /workspace/cleaned; echo ready > /workspace/ready; sleep 100 & wait';

/** Waits (bounded) until the job has set its trap: its `ready` file is listed. */
async function untilReady(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (cli(home, ['ls-files', 'handled'], env).stdout.includes('ready')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the job never set its trap');
}

describe.runIf(readiness.ready)(`docker stop and a TERM handler${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('records the exit code the handler chose, not the TERM that reached its shell', async () => {
    expect(cli(home, ['create', '--workspace-id', 'handled'], env).code).toBe(0);
    const running = cliAsync(home, ['run', '--json', 'handled', 'sh', '-c', HANDLER], env);
    await untilReady();
    const stop = cli(home, ['stop', 'handled', '--apply', '--grace-seconds', '5'], env);
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    const run = await running;
    expect(run.code, run.stdout + run.stderr).toBe(5);
    expect((JSON.parse(run.stdout) as { key_findings: string[] }).key_findings[0]).toMatch(/^exit 3\b/);
  });

  it('gives the grace to the handler of a job whose caller died', async () => {
    cli(home, ['run', 'handled', 'rm', '-f', 'ready'], env);
    // The run's own process is killed: its exec runs on in the container, and no run waits on it.
    const caller = spawn(BIN, ['run', 'handled', 'sh', '-c', HANDLER], { env: callEnv(home, env), stdio: 'ignore' });
    await untilReady();
    caller.kill('SIGKILL');
    await new Promise((r) => caller.once('close', r));
    const stop = cli(home, ['stop', 'handled', '--apply', '--grace-seconds', '5'], env);
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    const cleaned = cli(home, ['run', 'handled', 'cat', 'cleaned'], env);
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain('cleaned');
  });
});
