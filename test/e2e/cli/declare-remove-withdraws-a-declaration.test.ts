/**
 * A declared name that was a typo no longer traps the workspace: `declare
 * W NAME --remove` withdraws a declaration that was never exported (the
 * files are not touched), after which destroy no longer refuses for it; an
 * unknown name is refused naming the declared ones, and an exported
 * artifact keeps its record (#12 item 13).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('declare --remove', () => {
  it('withdraws an unexported declaration so destroy goes through', () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(cli(home, ['run', '--declare', 'reprot.txt=typo', 'w', 'write', 'report.txt', 'x']).code).toBe(0);
    expect(cli(home, ['destroy', 'w']).code).toBe(1);

    const unknown = cli(home, ['declare', 'w', 'nope.txt', '--remove']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("hint: declared: 'reprot.txt'");
    const withPurpose = cli(home, ['declare', 'w', 'reprot.txt=x', '--remove']);
    expect(withPurpose.code).toBe(1);
    expect(withPurpose.stderr).toContain('NAME alone');

    const removed = cli(home, ['declare', 'w', 'reprot.txt', '--remove', '--json']);
    expect(removed.code, removed.stderr).toBe(0);
    const pkg = JSON.parse(removed.stdout) as { outcome_summary: string; artifacts: unknown[] };
    expect(pkg.outcome_summary).toBe("artifact 'reprot.txt' is no longer declared in workspace w");
    expect(pkg.artifacts).toEqual([]);
    expect(cli(home, ['run', 'w', 'cat', 'report.txt']).stdout).toContain('x');
    expect(cli(home, ['destroy', 'w']).code).toBe(0);
  });

  it('keeps the record of an exported artifact', () => {
    expect(cli(home, ['create', '--workspace-id', 'v']).code).toBe(0);
    expect(cli(home, ['run', '--declare', 'r.txt=kept', 'v', 'write', 'r.txt', 'y']).code).toBe(0);
    expect(cli(home, ['export', 'v', 'r.txt', '--to', `${home}/r.txt`]).code).toBe(0);
    const out = cli(home, ['declare', 'v', 'r.txt', '--remove']);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('was exported to');
  });
});
