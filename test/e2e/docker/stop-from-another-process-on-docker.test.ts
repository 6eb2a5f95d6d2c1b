/**
 * On the docker provider, `stop --apply` from a second process ends every
 * process of a running job — including one it started in a new session —
 * and both processes report cancelled (exit 5): the seed's docker provider
 * reported the stopped job as failed, which this must never repeat.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const env = dockerCliEnv();
afterAll(async () => {
  if (readiness.ready) cli(home, ['destroy', 'stoppable', '--force'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`docker stop across processes${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('cancels the job and everything it started, both processes exiting 5', async () => {
    expect(cli(home, ['create', '--workspace-id', 'stoppable'], env).code).toBe(0);
    const script = 'setsid sh -c "sleep 300 & sleep 300" & nohup sleep 300 >/dev/null 2>&1 & echo started; sleep 300';
    const running = cliAsync(home, ['run', '--job-id', 'job-held', 'stoppable', 'sh', '-c', script], env);
    for (let i = 0; i < 100; i++) {
      if (cli(home, ['stop', 'stoppable'], env).stdout.includes('job job-held is running')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 300));
    const stop = cli(home, ['stop', 'stoppable', '--apply'], env);
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    expect(stop.stdout).toContain('nothing of the job remains: true');
    const run = await running;
    expect(run.code, run.stdout + run.stderr).toBe(5);
    // [s]: the grep's own command line does not match itself.
    const next = cli(home, ['run', 'stoppable', 'sh', '-c', 'ps -o args | grep -c "[s]leep 300" || true'], env);
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(/```\w*\n0\n```/);
  });
});
