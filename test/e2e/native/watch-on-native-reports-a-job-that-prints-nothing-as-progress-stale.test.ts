/**
 * On native, through the built bin: `watch --require-progress
 * --progress-timeout 1` on a job that printed once and then only sleeps
 * (no new output, no file written) ends with the violation progress_stale,
 * exit 6, the report last, while the job is still running.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, untilAJobRuns } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['stop', 'stale', '--apply'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`watch on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('reports progress_stale with exit 6 for a running job that makes no progress', async () => {
    expect(cli(home, ['create', '--workspace-id', 'stale'], env).code).toBe(0);
    const job = cliAsync(home, ['run', 'stale', 'sh', '-c', 'echo started; sleep 60'], env);
    await untilAJobRuns(home, 'stale', env);
    const watched = cli(home, ['watch', 'stale', '--for', '30', '--every', '0.3', '--require-progress', '--progress-timeout', '1', '--json'], env);
    expect(watched.code, watched.stdout + watched.stderr).toBe(6);
    const lines = watched.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const report = lines.at(-1) as { key_findings: Array<{ kind?: string; code?: string; text?: string }> };
    expect(lines.at(-2)).toMatchObject({ type: 'sample', state: 'running' });
    expect(report.key_findings.find((f) => f.kind === 'violation')).toMatchObject({
      code: 'progress_stale',
      text: expect.stringContaining('printed nothing new'),
    });
    expect(cli(home, ['stop', 'stale', '--apply'], env).code).toBe(5); // cancelled, as the run reads too
    expect((await job).code).toBe(5);
  }, 60_000);
});
