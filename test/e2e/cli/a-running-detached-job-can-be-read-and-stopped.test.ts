/**
 * A detached job is read and ended like any other while it runs (#15 item
 * 3): logs returns its output so far marked still running, inspect reports
 * it running with the bytes so far, and stop --apply from another process
 * reaches it through its supervisor: the stop exits 5 and the job's one
 * record (and wait's result) reads cancelled by stop. On fake and native.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { COMMANDS, CREATE_FLAGS, eventually, jsonOf, type DetachProvider } from '../../helpers/detached.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

for (const provider of ['fake', 'native'] as DetachProvider[]) {
  describe.runIf(provider === 'fake' || readiness.ready)(`a running detached job on ${provider}`, () => {
    const { home, cleanup } = makeHome();
    const env = { HEADSPACE_PROVIDER: provider };
    afterAll(async () => {
      cli(home, ['destroy', 'rd', '--force'], env);
      await cleanup();
    });

    it('shows its output so far in logs and inspect, and stop ends it as cancelled by stop', async () => {
      expect(cli(home, ['create', '--workspace-id', 'rd', ...CREATE_FLAGS[provider]], env).code).toBe(0);
      // The fake's block prints only when stopped: give it a line first.
      const argv = provider === 'fake' ? ['echo', 'started', '&&', 'block'] : COMMANDS.native.forever;
      expect(cli(home, ['run', '--detach', '--job-id', 'rj', 'rd', ...argv], env).code).toBe(0);
      expect(await eventually(() => cli(home, ['logs', 'rj'], env).stdout.includes('started'))).toBe(true);
      const logs = cli(home, ['logs', 'rj'], env);
      expect(logs.code).toBe(0);
      expect(logs.stdout).toContain('job rj (still running)');
      const inspect = jsonOf(cli(home, ['inspect', 'rj', '--json'], env).stdout);
      expect(inspect.status).toBe('running');
      expect(JSON.stringify(inspect.key_findings)).toMatch(/output \d+ bytes/);

      const stop = cli(home, ['stop', 'rd', '--job-id', 'rj', '--apply', '--grace-seconds', '0'], env);
      expect(stop.code, stop.stdout + stop.stderr).toBe(5);
      const waited = cli(home, ['wait', '--json', '--timeout', '20', 'rj'], env);
      expect(waited.code).toBe(5);
      expect(jsonOf(waited.stdout).status).toBe('cancelled');
      expect(jsonOf(waited.stdout).outcome_summary).toContain('was cancelled by stop');
    });
  });
}
