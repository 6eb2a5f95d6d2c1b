/**
 * run --detach (#15 item 1) returns at once with status running (exit 0),
 * naming the job and the calls that follow it, and the job then ends with
 * the same status, exit code and output as the same command run in the
 * foreground: success, a failing command, and the wall clock. On fake and on
 * native (the behaviour is provider-neutral).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { COMMANDS, CREATE_FLAGS, jsonOf, type DetachProvider } from '../../helpers/detached.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

for (const provider of ['fake', 'native'] as DetachProvider[]) {
  describe.runIf(provider === 'fake' || readiness.ready)(`a detached run on ${provider}`, () => {
    const { home, cleanup } = makeHome();
    const env = { HEADSPACE_PROVIDER: provider };
    afterAll(async () => {
      cli(home, ['destroy', 'det', '--force'], env);
      await cleanup();
    });

    it('returns running at once, then ends with the status, exit and output of the same run in the foreground', () => {
      expect(cli(home, ['create', '--workspace-id', 'det', '--concurrency', '2', '--wall-clock-seconds', '1', ...CREATE_FLAGS[provider]], env).code).toBe(0);
      const c = COMMANDS[provider];
      for (const [name, argv] of [
        ['ok', c.ok],
        ['fails', c.fails],
        ['timeout', c.forever],
      ] as const) {
        const detached = cli(home, ['run', '--json', '--detach', '--job-id', `d-${name}`, 'det', ...argv], env);
        expect(detached.code, detached.stderr).toBe(0);
        const started = jsonOf(detached.stdout);
        expect(started.status).toBe('running');
        expect(started.provenance.job_id).toBe(`d-${name}`);
        expect(started.attention.map((a) => a.action?.verb)).toEqual(expect.arrayContaining(['wait', 'logs', 'stop']));

        const waited = cli(home, ['wait', '--json', `d-${name}`], env);
        const foreground = cli(home, ['run', '--json', '--job-id', `f-${name}`, 'det', ...argv], env);
        const [w, f] = [jsonOf(waited.stdout), jsonOf(foreground.stdout)];
        expect(waited.code, `${name}: ${waited.stderr}`).toBe(foreground.code);
        expect(w.status).toBe(f.status);
        expect(w.provenance.exit_code).toBe(f.provenance.exit_code);
        expect(w.evidence.map((e) => e.excerpt)).toEqual(f.evidence.map((e) => e.excerpt));
        expect(w.outcome_summary.replace(`d-${name}`, 'JOB')).toBe(f.outcome_summary.replace(`f-${name}`, 'JOB'));
      }
      expect(jsonOf(cli(home, ['inspect', 'd-ok', '--json'], env).stdout).status).toBe('success');
      expect(jsonOf(cli(home, ['inspect', 'd-timeout', '--json'], env).stdout).status).toBe('timeout');
    });
  });
}
