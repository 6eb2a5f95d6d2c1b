/**
 * Malformed input of every kind ends with exit 1 and an error:/hint: pair on
 * stderr — never a stack trace, never an exit code outside 0–9, nothing on
 * stdout.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const cases: Array<[string, string[]]> = [
  ['an unknown verb', ['frobnicate']],
  ['an unknown flag', ['ls', '--no-such-flag']],
  ['a workspace id with ..', ['inspect', '../x']],
  ['a 65-character id', ['create', '--workspace-id', 'a'.repeat(65)]],
  ['a missing command', ['run', 'ws-1']],
  ['a missing workspace and command', ['run']],
  ['a negative memory budget', ['create', '--memory-bytes', '-5']],
  ['a non-numeric pids budget', ['create', '--pids-limit', 'many']],
  ['a fractional pids budget', ['create', '--pids-limit', '1.5']],
  ['a zero wall clock', ['create', '--wall-clock-seconds', '0']],
  ['an unknown provider', ['create', '--provider', 'vmware']],
  ['an unknown provider on ls', ['ls', '--provider', 'nope']],
  ['an unknown network mode', ['create', '--network', 'sometimes']],
  ['a bad --lines range', ['logs', 'job-1', '--lines', '9:2']],
  ['an unknown job', ['logs', 'job-nope']],
  ['an unknown workspace', ['inspect', 'nope']],
  ['an unknown explain path', ['explain', 'nothing-here']],
  ['a bad --max-result-bytes', ['ls', '--max-result-bytes', 'big']],
];

describe('malformed input', () => {
  for (const [what, args] of cases) {
    it(`refuses ${what} with exit 1, an error and a hint`, () => {
      const run = cli(home, args);
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: .+\nhint: .+\n$/);
      expect(run.stderr).not.toMatch(/\n\s+at .+\(.+\)/);
    });
  }

  it('answers --json failures with one JSON document on stderr and nothing on stdout', () => {
    const run = cli(home, ['inspect', '../x', '--json']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr)).toMatchObject({ code: 1, category: 'user_error', message: expect.any(String), remediation: expect.any(String) });
  });
});
