/**
 * The mistakes a new user made each come back with a hint that fixes that
 * mistake, never the generic "run `headspace explain exit-codes`" (#12
 * item 13): a malformed --grep pattern (and a lookaround, which RE2 refuses
 * on purpose, gets the RE2 hint instead), a host file that does not exist,
 * exporting a declared directory or a declared file the job never made,
 * `--ttl -5`, a malformed --expect-sha256.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const GENERIC = 'explain exit-codes';

function hintOf(stderr: string): string {
  return /^hint: (.*)$/m.exec(stderr)?.[1] ?? '';
}

describe('a mistake', () => {
  it('gets a hint about that mistake', () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(cli(home, ['run', '--job-id', 'job-a', '--declare', 'dir=a folder', '--declare', 'typo.txt=never made', 'w', 'write', 'dir/inner', 'x']).code).toBe(
      0,
    );
    const cases: Array<[string, string[], RegExp]> = [
      ['an unclosed group in --grep', ['logs', 'job-a', '--grep', '(a'], /escape a literal \(.*with a backslash/],
      ['a lookaround in --grep', ['logs', 'job-a', '--grep', '(?=a)'], /lookaround/],
      ['a missing host file', ['put', 'w', '/nonexistent/headspace-input', 'in.txt'], /ls -ld \/nonexistent\/headspace-input/],
      ['exporting a directory', ['export', 'w', 'dir', '--to', `${home}/dir-out`], /tar -czf dir\.tar\.gz dir/],
      [
        'exporting an artifact the job never made',
        ['export', 'w', 'typo.txt', '--to', `${home}/typo-out`],
        /withdrawn by declare with remove.*`HEADSPACE_HOME=\S+ headspace ls-files w`/,
      ],
      ['a negative --ttl', ['create', '--ttl', '-5'], /--ttl 3600/],
      ['a malformed --expect-sha256', ['export', 'w', 'typo.txt', '--to', `${home}/x`, '--expect-sha256', 'abc'], /sha256sum|copy the digest/],
    ];
    for (const [what, args, hint] of cases) {
      const out = cli(home, args);
      expect(out.code, `${what}: ${out.stderr}`).toBe(1);
      expect(out.stderr, what).not.toContain(GENERIC);
      expect(hintOf(out.stderr), what).toMatch(hint);
    }
    const missing = cli(home, ['export', 'w', 'typo.txt', '--to', `${home}/typo-out`]);
    expect(missing.stderr).toContain("declared artifact 'typo.txt' does not exist in workspace w");
  });
});
