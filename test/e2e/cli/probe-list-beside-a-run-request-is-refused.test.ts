/**
 * `probe --list` describes the scenarios and runs nothing. Beside a scenario
 * or --all it used to answer with the list alone (exit 0), as if the run
 * asked for had been done; it is refused (exit 1) instead, as `--last` is,
 * naming the flags and leaving stdout empty.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('probe --list', () => {
  it('is refused beside a scenario or --all, and answers alone', () => {
    for (const extra of [['--all'], ['write-outside']]) {
      const run = cli(home, ['probe', '--list', ...extra]);
      expect(run.code, extra.join(' ')).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('error: --list describes the scenarios and runs nothing: give it without a SCENARIO or --all');
      expect(run.stderr).toMatch(/headspace probe --list`$/m);
    }
    const alone = cli(home, ['probe', '--list', '--json']);
    expect(alone.code, alone.stderr).toBe(0);
    expect((JSON.parse(alone.stdout) as { outcome_summary: string }).outcome_summary).toMatch(/containment scenarios/);
  });
});
