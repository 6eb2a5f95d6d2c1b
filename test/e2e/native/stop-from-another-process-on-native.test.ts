/**
 * On the native provider, `stop --apply` from a second process ends every
 * process of a running job — including one it double-forked into a new
 * session — and both processes report cancelled (exit 5).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'stoppable'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`native stop across processes${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
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
    const next = cli(home, ['run', 'stoppable', 'sh', '-c', 'ps -e -o comm= | grep -c sleep || true'], env);
    expect(next.code).toBe(0);
    expect(next.stdout).toMatch(/```\w*\n0\n```/);
  });
});
