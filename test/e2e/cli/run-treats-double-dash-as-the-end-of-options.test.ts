/**
 * In `headspace run W …` the command starts after the workspace id (#12.10):
 * a `--` there ends headspace's options and is not part of the command, and a
 * headspace flag put after the id (`--json`) is refused with a hint to move
 * it instead of being run as a command named `--json`. After `--`, words
 * that look like flags belong to the command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
beforeAll(() => {
  expect(cli(home, ['create', '--workspace-id', 'dd']).code).toBe(0);
});
afterAll(cleanup);

describe('run and --', () => {
  it('drops a -- that ends the options', () => {
    const run = cli(home, ['run', 'dd', '--', 'echo', 'hello']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('ran echo hello: success');
  });

  it('refuses a headspace flag after the workspace id, with a hint to move it', () => {
    const run = cli(home, ['run', 'dd', '--json', 'echo', 'hello']);
    expect(run.code).toBe(1);
    const error = JSON.parse(run.stderr) as { message: string; remediation: string };
    expect(error.message).toContain("'--json' comes after the workspace id");
    expect(error.remediation).toContain('before the workspace id');
    // Nothing ran: the workspace still holds only the job of the first test.
    expect(cli(home, ['inspect', 'dd']).stdout).toContain('1 job(s)');
  });

  it('passes flag-like words after -- to the command', () => {
    const run = cli(home, ['run', 'dd', '--', '--json']);
    expect(run.code).toBe(6);
    expect(run.stdout).toContain('--json: command not found');
  });
});
