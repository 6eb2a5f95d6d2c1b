/**
 * A verb given `-` reads the caller's stdin (batch --spec -): through
 * `headspace serve` the client sends its stdin with the call, and the
 * result is the in-process one.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome } from '../../helpers/cli.js';
import { baseEnv } from '../../helpers/serve.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

function batchFromStdin(mode: string, spec: string) {
  const r = spawnSync(BIN, ['batch', '--strategy', 'all', '--spec', '-', '--json'], {
    input: spec,
    encoding: 'utf8',
    env: baseEnv(home, { HEADSPACE_SERVE: mode }),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('batch --spec - through headspace serve', () => {
  it("reads the caller's stdin, as in-process", () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const spec = JSON.stringify({ jobs: [{ workspace: 'w', command: 'echo from-stdin', name: 'one' }] });
    const served = batchFromStdin('require', spec);
    const inProcess = batchFromStdin('off', spec);
    expect(served.code).toBe(0);
    expect(served.code).toBe(inProcess.code);
    const jobs = (out: string) => (JSON.parse(out) as { key_findings: string[] }).key_findings.join('\n').replace(/job-[0-9a-f]+/g, 'JOB');
    expect(jobs(served.stdout)).toBe(jobs(inProcess.stdout));
    expect(served.stdout).toContain('one');
    // Malformed stdin is refused the same way by both.
    const bad = [batchFromStdin('require', 'jobs: ['), batchFromStdin('off', 'jobs: [')];
    expect(bad[0]).toEqual(bad[1]);
    expect(bad[0]!.code).toBe(1);
  }, 60_000);
});
