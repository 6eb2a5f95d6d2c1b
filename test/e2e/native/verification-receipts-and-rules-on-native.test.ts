/**
 * On the native provider, through the built bin (#16): check commands run
 * in the sandbox under the workspace's policy and decide the exit code —
 * 0 when they pass, 6 when one fails, 9 (inconclusive) when one cannot run
 * — whatever the job printed; a job's receipt verifies offline against its
 * exported artifact and fails once the artifact is altered; and a
 * deny-command rule refuses a job before anything starts: no job is
 * recorded and no job cgroup is created.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CGROUP_PARENT } from '../../../src/providers/native/cgroup-v1.js';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();
const { home, cleanup } = makeHome();
const env = { HEADSPACE_PROVIDER: 'native' };
afterAll(async () => {
  cli(home, ['destroy', 'checked', '--force'], env);
  cli(home, ['destroy', 'guarded', '--force'], env);
  await cleanup();
});

/** The workspace's job cgroups in each v1 controller (the native layout: /sys/fs/cgroup/<controller>/headspace/<sha256(root)[:10]>-<id>/job-<k>). */
function jobCgroups(workspaceId: string): string[] {
  const name = `${createHash('sha256').update(join(home, 'native')).digest('hex').slice(0, 10)}-${workspaceId}`;
  return ['memory', 'pids', 'cpu', 'unified'].flatMap((controller) => {
    const dir = join('/sys/fs/cgroup', controller, CGROUP_PARENT, name);
    return existsSync(dir) ? readdirSync(dir).filter((entry) => entry.startsWith('job-')) : [];
  });
}

describe.runIf(readiness.ready)(`verification, receipts and rules on native${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`, () => {
  it('creates a workspace', () => {
    const created = cli(home, ['create', '--workspace-id', 'checked', '--wall-clock-seconds', '20'], env);
    expect(created.code, created.stderr).toBe(0);
  });

  it('exits 0 when the job and its checks pass in the sandbox', () => {
    const run = cli(
      home,
      [
        'run',
        '--verify',
        'test -s out.txt',
        '--verify',
        "sh -c 'grep -q 42 out.txt'",
        '--expect-file',
        'out.txt',
        '--expect-output',
        '^wrote$',
        'checked',
        'sh',
        '-c',
        'echo 42 > out.txt; echo wrote',
      ],
      env,
    );
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('verification passed: 4 of 4 checks passed');
  });

  it('exits 6 when the job exits 0 and prints success but a check fails', () => {
    const run = cli(home, ['run', '--verify', "sh -c 'grep -q 43 out.txt'", 'checked', 'sh', '-c', 'echo verified; echo PASS'], env);
    expect(run.code, run.stdout).toBe(6);
    expect(run.stdout).toMatch(/exited 0, but check 1 of 1 .* failed: exited 1/);
  });

  it('exits 9 when a check command does not exist in the sandbox', () => {
    const run = cli(home, ['run', '--verify', 'no-such-checker --all', 'checked', 'true'], env);
    expect(run.code, run.stdout).toBe(9);
    expect(run.stdout).toContain('inconclusive');
  });

  it('binds the exported artifact in a receipt that verifies offline, and fails once the artifact is altered', () => {
    const run = cli(home, ['run', '--json', '--declare', 'report.txt=the report', 'checked', 'sh', '-c', 'echo result=1 > report.txt'], env);
    expect(run.code, run.stderr).toBe(0);
    const jobId = (JSON.parse(run.stdout) as { provenance: { job_id: string } }).provenance.job_id;
    const out = join(home, 'exported');
    expect(cli(home, ['export', 'checked', 'report.txt', '--to', join(home, 'report.txt')], env).code).toBe(0);
    const receipt = cli(home, ['receipt', '--json', '--out', out, jobId], env);
    expect(receipt.code, receipt.stderr).toBe(0);
    const pinned = (JSON.parse(receipt.stdout) as { provenance: { receipt_sha256: string } }).provenance.receipt_sha256;
    const ok = cli(home, ['receipt', 'verify', out, '--artifacts', home, '--expect-sha256', pinned], env);
    expect(ok.code, ok.stdout).toBe(0);
    writeFileSync(join(home, 'report.txt'), 'result=2\n');
    const tampered = cli(home, ['receipt', 'verify', out, '--artifacts', home], env);
    expect(tampered.code, tampered.stdout).toBe(6);
    expect(tampered.stdout).toContain('does NOT verify: artifact report.txt');
  });

  it('refuses a denied command with exit 3 before any job or job cgroup exists', () => {
    const created = cli(home, ['create', '--workspace-id', 'guarded', '--concurrency', '2', '--rule', 'deny-command:rm'], env);
    expect(created.code, created.stderr).toBe(0);
    expect(jobCgroups('guarded')).toEqual([]);
    const run = cli(home, ['run', 'guarded', '/bin/rm', '-rf', '/workspace'], env);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain('rule deny-command:rm');
    expect(jobCgroups('guarded')).toEqual([]);
    expect(cli(home, ['inspect', 'guarded'], env).stdout).not.toMatch(/job-[0-9a-f]{6}/);
    const allowed = cli(home, ['run', 'guarded', 'true'], env);
    expect(allowed.code, allowed.stderr).toBe(0);
    // The same look finds the job cgroup a job that did run made: the empty lists above are not blindness.
    expect(jobCgroups('guarded').length).toBeGreaterThan(0);
  });
});
