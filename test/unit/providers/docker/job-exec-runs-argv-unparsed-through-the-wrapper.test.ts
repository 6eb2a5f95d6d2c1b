/**
 * A job's exec is the wrapper script with the argv after it, untouched: the
 * argv is never joined into a shell string, it runs as the job user, the
 * sweep after the job is a kill as that user (never a file the job could
 * write), and the job's environment is exactly what was asked.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { JOB_WRAPPER, planJobExec, planStopExec, STOP_SCRIPT } from '../../../../src/providers/docker/plan-job.js';

const user = { uid: 600123, gid: 600124 };

it('passes the argv after the wrapper and the job uid, as the job user', () => {
  const argv = ['sh', '-c', 'echo "$1; rm -rf /"', 'x', '$(id)'];
  const plan = planJobExec({ argv, env: { A: 'b=c' }, cwd: '', user });
  expect(plan.cmd.slice(0, 3)).toEqual(['/bin/sh', '-c', JOB_WRAPPER]);
  expect(plan.cmd.slice(3)).toEqual(['headspace-job', '600123', ...argv]);
  expect(plan.env).toEqual(['A=b=c']);
  expect(plan.workingDir).toBe('/workspace');
  expect(plan.user).toBe('600123:600124');
  expect(planJobExec({ argv, env: {}, cwd: 'src/a b', user }).workingDir).toBe('/workspace/src/a b');
});

it('trusts no file a job can write: both scripts end processes by a kill -1 as the job uid', () => {
  for (const script of [JOB_WRAPPER, STOP_SCRIPT]) {
    expect(script).not.toMatch(/\/tmp|\.headspace-jobs|cat /);
    expect(script).toContain('kill -9 -1');
  }
  expect(STOP_SCRIPT).toContain('kill -15 -1');
});

it('keeps the exit status of the job, 127 for a missing command and 126 for one it cannot execute', () => {
  // The wrapper is plain POSIX sh: run it here with the host's sh, as the container's would, its kill -1
  // made harmless (it would signal every process of this test's uid on the host).
  const dir = mkdtempSync(join(tmpdir(), 'hs-docker-wrapper-'));
  const notExecutable = join(dir, 'tool.sh');
  writeFileSync(notExecutable, '#!/bin/sh\necho never\n', { mode: 0o644 });
  const status = (...argv: string[]) => {
    try {
      execFileSync('/bin/sh', ['-c', JOB_WRAPPER.replaceAll('kill -9 -1', 'true'), 'headspace-job', '2147483000', ...argv], { stdio: 'ignore' });
      return 0;
    } catch (error) {
      return (error as { status: number }).status;
    }
  };
  expect(status('sh', '-c', 'exit 7')).toBe(7);
  expect(status('no-such-command-here')).toBe(127);
  expect(status(notExecutable)).toBe(126);
  rmSync(dir, { recursive: true, force: true });
});

it('stops the job as the job user, with the grace in ms', () => {
  const stop = planStopExec(user, 1500);
  expect(stop.cmd.slice(0, 3)).toEqual(['/bin/sh', '-c', STOP_SCRIPT]);
  expect(stop.cmd.slice(3)).toEqual(['headspace-stop', '1500', '600123']);
  expect(stop.user).toBe('600123:600124');
  expect(planStopExec(user, -5).cmd[4]).toBe('0');
});
