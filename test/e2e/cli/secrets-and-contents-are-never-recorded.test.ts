/**
 * The recording guarantee: names, paths and digests are recorded; values
 * and file contents never are — not in any result package, the state store
 * (with its WAL), the journal, the logs headspace writes, nor the provider's
 * own records. Random markers planted as --env values, --env-file values and
 * file contents (put, --input) are searched for on every surface, on fake
 * and on native. The job's own captured output is the stated edge: a job
 * that prints a secret puts it there itself, so no job here prints one.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { recordedSurfaces } from '../../helpers/recorded-surfaces.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

for (const provider of ['fake', 'native'] as const) {
  const enabled = provider === 'fake' || readiness.ready;
  describe.runIf(enabled)(`the recording guarantee on ${provider}`, () => {
    const { home, cleanup } = makeHome();
    const scratch = mkdtempSync(join(tmpdir(), 'hs-markers-'));
    afterAll(async () => {
      cli(home, ['destroy', 'rec', '--force'], { HEADSPACE_PROVIDER: provider });
      await cleanup();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('keeps every planted value and content out of every recording surface', () => {
      const marker = (what: string) => `${what}-${randomBytes(12).toString('hex')}`;
      const envValue = marker('envvalue');
      const envFileValue = marker('envfilevalue');
      const putContent = marker('putcontent');
      const inputContent = marker('inputcontent');
      const markers = [envValue, envFileValue, putContent, inputContent];
      writeFileSync(join(scratch, 'put.txt'), putContent);
      writeFileSync(join(scratch, 'input.txt'), inputContent);
      writeFileSync(join(scratch, 'job.env'), `# planted\nFILE_SECRET=${envFileValue}\n`);
      const env = { HEADSPACE_PROVIDER: provider, API_TOKEN: envValue };
      const outputs: string[] = [];
      const call = (args: string[]) => {
        const run = cli(home, args, env);
        outputs.push(run.stdout, run.stderr);
        return run;
      };
      expect(call(['create', '--workspace-id', 'rec']).code).toBe(0);
      expect(call(['put', 'rec', join(scratch, 'put.txt'), 'put.txt']).code).toBe(0);
      const command =
        provider === 'fake'
          ? ['write', 'out.txt', 'done']
          : ['sh', '-c', 'test -n "$API_TOKEN" && test -n "$FILE_SECRET" && wc -c input.txt put.txt > out.txt && echo done'];
      const ran = call([
        'run',
        '--env',
        'API_TOKEN',
        '--env-file',
        join(scratch, 'job.env'),
        '--input',
        `input.txt=${join(scratch, 'input.txt')}`,
        '--declare',
        'out.txt=the result',
        'rec',
        ...command,
      ]);
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.stdout).toContain('environment given: API_TOKEN, FILE_SECRET (names only; values are never recorded)');
      expect(ran.stdout).toMatch(/input input\.txt: \d+ bytes, sha256:[0-9a-f]{64}/);
      for (const args of [
        ['inspect', 'rec'],
        ['inspect', 'rec', '--json'],
        ['ls', '--json'],
        ['ls-files', 'rec'],
        ['doctor', '--provider', provider],
        ['export', 'rec', 'out.txt', '--to', join(scratch, 'out.txt')],
      ]) {
        expect(call(args).code, args.join(' ')).toBe(0);
      }
      // A workspace's own storage (its files folder, or the filesystem image that holds them) is where contents belong; everything else is a record.
      const surfaces = recordedSurfaces(home);
      expect(surfaces.some((s) => s.path.endsWith('state.db'))).toBe(true);
      const texts = [...outputs, ...surfaces.map((s) => s.text)];
      for (const m of markers) for (const text of texts) expect(text.includes(m), `${m.split('-')[0]} leaked`).toBe(false);
    });

    it('refuses --env NAME=VALUE without echoing the value, and an unset name', () => {
      const value = `typed-${randomBytes(8).toString('hex')}`;
      const typed = cli(home, ['run', '--env', `TOKEN=${value}`, 'rec', 'true'], { HEADSPACE_PROVIDER: provider });
      expect(typed.code).toBe(1);
      expect(typed.stderr).not.toContain(value);
      const unset = cli(home, ['run', '--env', 'NOT_SET_ANYWHERE', 'rec', 'true'], { HEADSPACE_PROVIDER: provider });
      expect(unset.code).toBe(1);
      expect(unset.stderr).toContain('NOT_SET_ANYWHERE');
    });

    it('gives a value to its job only, never to the next one', () => {
      const value = `once-${randomBytes(8).toString('hex')}`;
      const printer = provider === 'fake' ? ['env', 'ONCE'] : ['sh', '-c', 'echo "[$ONCE]"'];
      const first = cli(home, ['run', '--env', 'ONCE', 'rec', ...printer], { HEADSPACE_PROVIDER: provider, ONCE: value });
      expect(first.stdout).toContain(value); // the job printed it itself: the stated edge
      const second = cli(home, ['run', 'rec', ...printer], { HEADSPACE_PROVIDER: provider, ONCE: value });
      expect(second.stdout).not.toContain(value);
    });
  });
}
