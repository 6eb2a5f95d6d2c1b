/**
 * On native, through the built bin: `watch --require-running --json` samples
 * a running job with figures read from its cgroup (memory, pids, cpu), one
 * JSON line per sample, and when the job ends the next sample is the
 * violation not_running: the report is the last line and the exit code 6.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, untilAJobRuns } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['stop', 'watched', '--apply'], env);
  cli(home, ['destroy', 'watched'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`watch on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('samples the running job, then reports not_running with exit 6 once it ends', async () => {
    expect(cli(home, ['create', '--workspace-id', 'watched'], env).code).toBe(0);
    const job = cliAsync(home, ['run', 'watched', 'sh', '-c', 'echo started; sleep 3; echo done'], env);
    await untilAJobRuns(home, 'watched', env);
    const watched = cli(home, ['watch', 'watched', '--for', '30', '--every', '0.5', '--require-running', '--json'], env);
    expect(watched.code, watched.stdout + watched.stderr).toBe(6);
    const lines = watched.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const samples = lines.slice(0, -1);
    const report = lines.at(-1) as { status: string; key_findings: Array<{ kind?: string; code?: string }> };
    expect(samples.length).toBeGreaterThan(1);
    expect(samples[0]).toMatchObject({ type: 'sample', state: 'running', provider_state: 'ready' });
    expect(samples[0]!.memory_bytes).toBeGreaterThan(0);
    expect(samples[0]!.pids).toBeGreaterThan(0);
    expect(typeof samples[0]!.cpu_seconds).toBe('number');
    expect(samples.at(-1)).toMatchObject({ state: 'success' });
    expect(report.status).toBe('failure');
    expect(report.key_findings.find((f) => f.kind === 'violation')).toMatchObject({ code: 'not_running' });
    expect((await job).code).toBe(0);
  }, 60_000);
});
