/**
 * `export --to DIR/` (or an existing directory) publishes into it under the
 * artifact's file name, instead of refusing the directory as an existing
 * destination and suggesting an --overwrite that then failed too;
 * `--expect-sha256` takes the `sha256:…` form results print (#12 item 13).
 * A trailing slash on a directory that does not exist is refused, saying so.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('export', () => {
  it('publishes into a directory given as --to, and accepts the sha256: prefix it prints', () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const run = cli(home, ['run', '--json', '--declare', 'out/report.txt=the report', 'w', 'write', 'out/report.txt', 'hello']);
    expect(run.code, run.stderr).toBe(0);
    const into = join(home, 'into');
    mkdirSync(into);
    const first = cli(home, ['export', '--json', 'w', 'out/report.txt', '--to', `${into}/`]);
    expect(first.code, first.stderr).toBe(0);
    expect(readFileSync(join(into, 'report.txt'), 'utf8')).toBe('hello');
    const digest = /verified as (sha256:[0-9a-f]{64})/.exec(first.stdout)?.[1];
    expect(digest).toBeDefined();

    const again = cli(home, ['export', 'w', 'out/report.txt', '--to', into, '--expect-sha256', digest!, '--overwrite']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain(`durable at ${join(into, 'report.txt')}`);
    const upper = cli(home, [
      'export',
      'w',
      'out/report.txt',
      '--to',
      join(home, 'copy.txt'),
      '--expect-sha256',
      digest!.toUpperCase().replace('SHA256:', 'sha256:'),
    ]);
    expect(upper.code, upper.stderr).toBe(0);
  });

  it('refuses a --to with a trailing slash whose directory does not exist, writing nothing', () => {
    const out = cli(home, ['export', 'w', 'out/report.txt', '--to', join(home, 'nowhere') + '/']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('names a directory that does not exist');
    expect(existsSync(join(home, 'nowhere'))).toBe(false);
  });
});
