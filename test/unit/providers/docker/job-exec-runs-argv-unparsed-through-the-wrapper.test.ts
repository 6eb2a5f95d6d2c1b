/**
 * A job's exec is the wrapper script with the argv after it, untouched: the
 * argv is never joined into a shell string, the sweep after the job covers
 * the whole container when the job runs alone and only its session when
 * jobs run at once, and the job's environment is exactly what was asked.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { JOB_WRAPPER, planJobExec, planStopExec } from '../../../../src/providers/docker/plan-job.js';

it('passes the argv after the wrapper, with the sweep chosen by concurrency', () => {
  const argv = ['sh', '-c', 'echo "$1; rm -rf /"', 'x', '$(id)'];
  const alone = planJobExec({ jobId: 'job-1', argv, env: { A: 'b=c' }, cwd: '', concurrency: 1 });
  expect(alone.cmd.slice(0, 3)).toEqual(['/bin/sh', '-c', JOB_WRAPPER]);
  expect(alone.cmd.slice(3)).toEqual(['headspace-job', 'job-1', 'all', ...argv]);
  expect(alone.env).toEqual(['A=b=c']);
  expect(alone.workingDir).toBe('/workspace');
  const shared = planJobExec({ jobId: 'job-2', argv, env: {}, cwd: 'src/a b', concurrency: 3 });
  expect(shared.cmd[5]).toBe('session');
  expect(shared.workingDir).toBe('/workspace/src/a b');
});

it('keeps the exit status of the job, 127 for a missing command and 126 for one it cannot execute', () => {
  // The wrapper is plain POSIX sh: run it here with the host's sh, as the container's would
  // ('session' sweep: only the wrapper's own session, never the host's other processes).
  const dir = mkdtempSync(join(tmpdir(), 'hs-docker-wrapper-'));
  const notExecutable = join(dir, 'tool.sh');
  writeFileSync(notExecutable, '#!/bin/sh\necho never\n', { mode: 0o644 });
  const status = (...argv: string[]) => {
    try {
      execFileSync(
        '/bin/sh',
        ['-c', JOB_WRAPPER.replaceAll('/tmp/.headspace-jobs', join(dir, 'jobs')), 'headspace-job', `unit-${process.pid}`, 'session', ...argv],
        { stdio: 'ignore' },
      );
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

it('stops named jobs by their session and every job otherwise, with the grace in ms', () => {
  expect(planStopExec(['a', 'b'], 1500).slice(3)).toEqual(['headspace-stop', '1500', 'jobs', 'a', 'b']);
  expect(planStopExec(undefined, 0).slice(3)).toEqual(['headspace-stop', '0', 'all']);
});
