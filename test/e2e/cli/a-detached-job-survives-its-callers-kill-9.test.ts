/**
 * A detached job belongs to its supervisor, not to its caller (#15 item 1):
 * the caller killed with -9 the moment it has printed the job's id changes
 * nothing (the job ends as it would have, with its output); a caller killed
 * after recording the job but before handing it over leaves no job running
 * forever: the supervisor records it infrastructure_failure (nothing ran).
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome, serveModeEnv } from '../../helpers/cli.js';
import { COMMANDS, CREATE_FLAGS, eventually, jobStatus, jsonOf, type DetachProvider } from '../../helpers/detached.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

/** Starts the bin and kills it with SIGKILL as soon as it prints anything on stdout; resolves with what it printed. */
function runAndKillOnFirstOutput(home: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(BIN, args, {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, ...env, ...serveModeEnv(env) },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      child.kill('SIGKILL');
    });
    child.on('close', () => resolve(out));
  });
}

for (const provider of ['fake', 'native'] as DetachProvider[]) {
  describe.runIf(provider === 'fake' || readiness.ready)(`a detached job on ${provider}`, () => {
    const { home, cleanup } = makeHome();
    const env = { HEADSPACE_PROVIDER: provider };
    afterAll(async () => {
      cli(home, ['destroy', 'surv', '--force'], env);
      await cleanup();
    });

    it("ends as it would have when its caller is killed with -9 right after printing the job's id", async () => {
      expect(cli(home, ['create', '--workspace-id', 'surv', ...CREATE_FLAGS[provider]], env).code).toBe(0);
      const printed = await runAndKillOnFirstOutput(home, ['run', '--detach', '--job-id', 'survivor', 'surv', ...COMMANDS[provider].late], env);
      expect(printed).toContain('survivor');
      const waited = cli(home, ['wait', '--json', '--timeout', '30', 'survivor'], env);
      expect(waited.code, waited.stderr).toBe(0);
      expect(jsonOf(waited.stdout).status).toBe('success');
      expect(JSON.stringify(jsonOf(waited.stdout).evidence)).toContain('late-line');
    });

    it('is recorded infrastructure_failure, not left running, when its caller dies before handing it over', async () => {
      const crashed = cli(home, ['run', '--detach', '--job-id', 'unhanded', 'surv', ...COMMANDS[provider].ok], {
        ...env,
        HEADSPACE_TEST_CRASH_AT: 'run:after-intent',
      });
      expect(crashed.code).not.toBe(0);
      expect(await eventually(() => jobStatus(home, 'unhanded', env) !== 'running')).toBe(true);
      const job = jsonOf(cli(home, ['inspect', 'unhanded', '--json'], env).stdout);
      expect(job.status).toBe('infrastructure_failure');
      expect(JSON.stringify(job.key_findings)).toContain('never started');
      // The workspace is free again: the next run goes ahead.
      expect(cli(home, ['run', 'surv', ...COMMANDS[provider].ok], env).code).toBe(0);
    });
  });
}
