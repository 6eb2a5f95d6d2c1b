/**
 * `stop --apply` of a detached run on native records the job's own end when
 * it comes within the grace: a TERM handler's `exit 3` is exit 3 (its output
 * kept), and a job that TERM ends is signal SIGTERM, both reading cancelled.
 * Before, the job's supervisor, seeing the stop recorded, killed the job at
 * once (SIGKILL) without waiting for the stop's TERM and grace, and the run
 * machine dropped the exit code of every cancelled job: such jobs read
 * "exit (none) (signal SIGKILL)".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'stoppee'], env);
  await cleanup();
});

/** Starts a detached job and waits until it printed `armed` (its shell has set its trap). */
async function startArmed(jobId: string, script: string): Promise<void> {
  const run = cli(home, ['run', '--detach', '--job-id', jobId, 'stoppee', 'sh', '-c', script], env);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  for (let i = 0; i < 150; i++) {
    if (cli(home, ['logs', jobId, '--grep', 'armed'], env).stdout.includes('armed')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`job ${jobId} never printed armed`);
}

/** The job's record as inspect shows it: its status, its exit line and its output. */
function recordOf(jobId: string): { status: string; exit: string; output: string } {
  const pkg = JSON.parse(cli(home, ['inspect', '--json', jobId], env).stdout) as {
    status: string;
    key_findings: string[];
    evidence: Array<{ excerpt?: string }>;
  };
  return { status: pkg.status, exit: pkg.key_findings.find((f) => f.startsWith('exit'))!, output: pkg.evidence.map((e) => e.excerpt ?? '').join('') };
}

describe.runIf(readiness.ready)(`native stop of a detached job${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it("records a TERM handler's own exit code, with what it printed", async () => {
    expect(cli(home, ['create', '--workspace-id', 'stoppee'], env).code).toBe(0);
    await startArmed('job-trap', 'trap "echo got TERM; exit 3" TERM; echo armed; sleep 100 & wait');
    const stop = cli(home, ['stop', 'stoppee', '--job-id', 'job-trap', '--apply'], env);
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    const record = recordOf('job-trap');
    expect(record.status).toBe('cancelled');
    expect(record.exit).toMatch(/^exit 3\b/);
    expect(record.exit).not.toContain('signal');
    expect(record.output).toContain('got TERM');
  });

  it('records a job that TERM ended as signal SIGTERM, not SIGKILL', async () => {
    await startArmed('job-sleep', 'echo armed; exec sleep 100');
    const stop = cli(home, ['stop', 'stoppee', '--apply'], env);
    expect(stop.code, stop.stdout + stop.stderr).toBe(5);
    const record = recordOf('job-sleep');
    expect(record.status).toBe('cancelled');
    expect(record.exit).toMatch(/^exit \(none\) \(signal SIGTERM\)/);
  });
});
