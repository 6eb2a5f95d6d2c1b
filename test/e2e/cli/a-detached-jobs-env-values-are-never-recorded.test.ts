/**
 * The recording guarantee for detached runs (#15 item 1): the job's env
 * values reach its supervisor only over a pipe. Markers planted as --env and
 * --env-file values are absent from the supervisor's argv and environment
 * while the job runs (which proves the job received them), from the result,
 * and afterwards from every file under HEADSPACE_HOME (the state store with
 * its WAL, logs, the provider's records). On fake and native.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { recordedSurfaces } from '../../helpers/recorded-surfaces.js';
import { CREATE_FLAGS, eventually, jobStatus, jsonOf, type DetachProvider } from '../../helpers/detached.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

for (const provider of ['fake', 'native'] as DetachProvider[]) {
  describe.runIf(provider === 'fake' || readiness.ready)(`a detached job's env on ${provider}`, () => {
    const { home, cleanup } = makeHome();
    const scratch = mkdtempSync(join(tmpdir(), 'hs-detach-env-'));
    const env = { HEADSPACE_PROVIDER: provider };
    afterAll(async () => {
      cli(home, ['destroy', 'sec', '--force'], env);
      await cleanup();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('never reaches the supervisor argv or environment, the result, or any file under the home', async () => {
      const envValue = `detachenv-${randomBytes(12).toString('hex')}`;
      const fileValue = `detachfile-${randomBytes(12).toString('hex')}`;
      writeFileSync(join(scratch, 'job.env'), `FILE_SECRET=${fileValue}\n`);
      expect(cli(home, ['create', '--workspace-id', 'sec', ...CREATE_FLAGS[provider]], env).code).toBe(0);
      // The job proves it got both values without printing them, then waits to be looked at.
      const argv =
        provider === 'fake' ? ['block'] : ['sh', '-c', 'test -n "$API_TOKEN" && test -n "$FILE_SECRET" && echo got-both && sleep 60 || echo missing'];
      const started = cli(home, ['run', '--json', '--detach', '--job-id', 'sj', '--env', 'API_TOKEN', '--env-file', join(scratch, 'job.env'), 'sec', ...argv], {
        ...env,
        API_TOKEN: envValue,
      });
      expect(started.code, started.stderr).toBe(0);
      const supervisor = Number(/supervisor pid (\d+)/.exec(started.stdout)?.[1]);
      expect(supervisor).toBeGreaterThan(0);
      if (provider === 'native') expect(await eventually(() => cli(home, ['logs', 'sj'], env).stdout.includes('got-both'))).toBe(true);
      const alive = [`/proc/${supervisor}/cmdline`, `/proc/${supervisor}/environ`].map((path) => readFileSync(path).toString('latin1'));
      expect(cli(home, ['stop', 'sec', '--apply', '--grace-seconds', '0'], env).code).toBe(5);
      expect(await eventually(() => jobStatus(home, 'sj', env) === 'cancelled')).toBe(true);
      const texts = [started.stdout, started.stderr, cli(home, ['wait', '--json', 'sj'], env).stdout, ...alive, ...recordedSurfaces(home).map((s) => s.text)];
      expect(jsonOf(started.stdout).key_findings).toContain('environment given: API_TOKEN, FILE_SECRET (names only; values are never recorded)');
      for (const marker of [envValue, fileValue]) for (const text of texts) expect(text.includes(marker), `${marker.split('-')[0]} leaked`).toBe(false);
    });
  });
}
