/**
 * On docker a job's stop runs inside the container as the job's own uid
 * (that is what lets its `kill -1` reach every process of the job and
 * nothing else), so the job can signal the stop itself. A job that froze it
 * (SIGSTOP) held `stop --apply` forever and outlived its wall clock; one that
 * killed it survived its stop (exit 7, "could not be fully stopped"). A stop
 * that overruns its grace (by HEADSPACE_DOCKER_STOP_SLACK_SECONDS, 2 s here,
 * 30 s by default) or is ended before it answers is a job resisting its end:
 * the container is restarted, which ends every process in it, and both the
 * stop and the run read cancelled (exit 5), with nothing of the job left.
 * The kill at a job's wall clock does the same, sooner.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome, untilAJobRuns } from '../../helpers/cli.js';
import { dockerCliEnv, dockerReadiness } from '../../helpers/docker-readiness.js';

const readiness = await dockerReadiness();
const { home, cleanup } = makeHome();
const env = dockerCliEnv({ HEADSPACE_DOCKER_STOP_SLACK_SECONDS: '2' });
const made: string[] = [];
afterAll(async () => {
  for (const id of made) cli(home, ['destroy', id, '--force'], env);
  await cleanup();
});

/** A job (python, in the default image) that ignores TERM and sends `signal` to every stop of it, every 2 ms. */
function resister(signal: 'SIGSTOP' | 'SIGKILL'): string {
  const path = join(home, `resist-${signal}.py`);
  writeFileSync(
    path,
    `import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
me = os.getpid()
print("started", flush=True)
while True:
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        try:
            if b"headspace-stop" in open("/proc/%s/cmdline" % p, "rb").read():
                os.kill(int(p), signal.${signal})
        except OSError:
            pass
    time.sleep(0.002)
`,
  );
  return path;
}

describe.runIf(readiness.ready && spawnSync('python3', ['--version']).status === 0)(
  `docker stop of a job that resists it${readiness.ready ? '' : ` (skipped: ${readiness.reason})`}`,
  () => {
    it.each(['SIGSTOP', 'SIGKILL'] as const)('ends a job that sends its stop %s by restarting its container, both exiting 5', async (signal) => {
      const id = `resist-${signal.toLowerCase()}`;
      made.push(id);
      expect(cli(home, ['create', '--workspace-id', id], env).code).toBe(0);
      const running = cliAsync(home, ['run', '--input', `resist.py=${resister(signal)}`, id, 'python3', 'resist.py'], env);
      await untilAJobRuns(home, id, env);
      const started = Date.now();
      const stop = cli(home, ['stop', id, '--apply', '--grace-seconds', '1'], env);
      expect(stop.code, stop.stdout + stop.stderr).toBe(5);
      expect(stop.stdout).toContain('nothing of the job remains: true');
      // The grace (1 s), the slack (2 s) at most, and the restart: bounded, where it was forever.
      expect(Date.now() - started).toBeLessThan(60_000);
      const run = await running;
      expect(run.code, run.stdout + run.stderr).toBe(5);
      const left = cli(home, ['run', id, 'sh', '-c', 'ps -o args | grep -c "[r]esist.py" || true'], env);
      expect(left.code, left.stdout + left.stderr).toBe(0);
      expect(left.stdout).toMatch(/```\w*\n0\n```/);
    });

    // The kill at a job's wall clock has a short slack of its own (5 s): with the stop's 30 s, the run gave up on the
    // engine first (20 s after the abort), ended exit 7 and failed a workspace whose engine had answered throughout.
    it('ends a job that freezes its kill at the wall clock as a timeout, and the workspace runs the next job', async () => {
      made.push('resist-clock');
      expect(cli(home, ['create', '--workspace-id', 'resist-clock', '--wall-clock-seconds', '3'], env).code).toBe(0);
      const run = cli(home, ['run', '--input', `resist.py=${resister('SIGSTOP')}`, 'resist-clock', 'python3', 'resist.py'], {
        ...env,
        HEADSPACE_DOCKER_STOP_SLACK_SECONDS: '30',
      });
      expect(run.code, run.stdout + run.stderr).toBe(4);
      const next = cli(home, ['run', 'resist-clock', 'echo', 'still here'], env);
      expect(next.code, next.stdout + next.stderr).toBe(0);
      expect(next.stdout).toContain('still here');
    });
  },
);
