/**
 * `stop --apply` on native sends SIGTERM first, waits a grace
 * (`--grace-seconds`, default 5), then kills what remains: a job's TERM
 * handler runs and what it prints is kept in the job's output, the job
 * reading cancelled; a job that ignores TERM is killed once the grace is
 * over, not earlier and not much later.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'graceful'], env);
  await cleanup();
});

async function untilRunning(jobId: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (cli(home, ['stop', 'graceful'], env).stdout.includes(`job ${jobId} is running`)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  // Past the launch: the job's shell has set its trap.
  for (let i = 0; i < 100; i++) {
    if (cli(home, ['logs', jobId, '--grep', 'armed'], env).stdout.includes('armed')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} never printed armed`);
}

describe.runIf(readiness.ready)(`native stop with a grace${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('lets a TERM handler run and keeps what it printed', async () => {
    expect(cli(home, ['create', '--workspace-id', 'graceful'], env).code).toBe(0);
    const script = 'trap "echo term-handler-ran; exit 0" TERM; echo armed; while :; do sleep 0.1; done';
    const running = cliAsync(home, ['run', '--json', '--job-id', 'job-trap', 'graceful', 'sh', '-c', script], env);
    await untilRunning('job-trap');
    const stop = cli(home, ['stop', 'graceful', '--apply'], env);
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    const run = await running;
    expect(run.code, run.stderr).toBe(5);
    expect((JSON.parse(run.stdout) as { status: string }).status).toBe('cancelled');
    expect(cli(home, ['inspect', 'job-trap', '--logs'], env).stdout).toContain('term-handler-ran');
  });

  it('kills a job that ignores TERM once the grace is over', async () => {
    const script = 'trap "" TERM; echo armed; while :; do sleep 0.1; done';
    const running = cliAsync(home, ['run', '--job-id', 'job-deaf', 'graceful', 'sh', '-c', script], env);
    await untilRunning('job-deaf');
    const started = Date.now();
    const stop = cli(home, ['stop', 'graceful', '--apply', '--grace-seconds', '2'], env);
    const took = Date.now() - started;
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    expect(stop.stdout).toContain('nothing of the job remains: true');
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(12_000);
    expect((await running).code).toBe(5);
  });
});
