/**
 * On the docker provider, through the built bin: `watch --require-running
 * --json` samples a running job with figures read from the Engine's stats
 * for the workspace's container (memory, pids, cpu; docker's liveUsage),
 * and reports not_running, exit 6, once the job ends.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, untilAJobRuns } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const env = dockerCliEnv();
afterAll(async () => {
  if (readiness.ready) cli(home, ['destroy', 'watched', '--force'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`watch on docker${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('samples the container’s memory, pids and cpu while the job runs, then reports not_running', async () => {
    expect(cli(home, ['create', '--workspace-id', 'watched'], env).code).toBe(0);
    const job = cliAsync(home, ['run', 'watched', 'sh', '-c', 'echo started; sleep 4; echo done'], env);
    await untilAJobRuns(home, 'watched', env, 30_000);
    const watched = cli(home, ['watch', 'watched', '--for', '30', '--every', '0.5', '--require-running', '--json'], env);
    expect(watched.code, watched.stdout + watched.stderr).toBe(6);
    const lines = watched.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const samples = lines.slice(0, -1);
    const report = lines.at(-1) as { key_findings: Array<{ kind?: string; code?: string }> };
    expect(samples[0]).toMatchObject({ type: 'sample', state: 'running', provider_state: 'ready' });
    expect(samples[0]!.memory_bytes).toBeGreaterThan(0);
    expect(samples[0]!.pids).toBeGreaterThanOrEqual(2);
    expect(samples[0]!.cpu_seconds).toBeGreaterThan(0);
    expect(report.key_findings.find((f) => f.kind === 'violation')).toMatchObject({ code: 'not_running' });
    expect((await job).code).toBe(0);
  }, 90_000);
});
