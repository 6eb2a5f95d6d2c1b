/**
 * On native, through the built bin: when the process that runs a job is
 * killed outright (SIGKILL: no chance to record the end), the store still
 * says the job is running while nothing runs it. `watch` sees the record and
 * the runtime disagree and ends with the violation runtime_unhealthy, exit
 * 6, pointing at doctor.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome, untilAJobRuns } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['stop', 'orphaned', '--apply'], env);
  await cleanup();
});

describe.runIf(readiness.ready)(`watch on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('reports runtime_unhealthy with exit 6 when the job’s run process was killed', async () => {
    expect(cli(home, ['create', '--workspace-id', 'orphaned'], env).code).toBe(0);
    const run = spawn(BIN, ['run', 'orphaned', 'sh', '-c', 'echo started; sleep 60'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, ...env },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => run.on('exit', resolve));
    await untilAJobRuns(home, 'orphaned', env);
    run.kill('SIGKILL');
    await exited;
    const watched = cli(home, ['watch', 'orphaned', '--for', '20', '--every', '0.3', '--json'], env);
    expect(watched.code, watched.stdout + watched.stderr).toBe(6);
    const report = JSON.parse(watched.stdout.trimEnd().split('\n').at(-1)!) as {
      key_findings: Array<{ kind?: string; code?: string; text?: string }>;
      attention: Array<{ action?: { verb?: string } }>;
    };
    expect(report.key_findings.find((f) => f.kind === 'violation')).toMatchObject({
      code: 'runtime_unhealthy',
      text: expect.stringMatching(/recorded as running but its process \(pid \d+\) is gone/),
    });
    expect(report.attention.some((a) => a.action?.verb === 'doctor')).toBe(true);
  }, 60_000);
});
