/**
 * `logs JOB` without a view returns the excerpt a run's result carries, its
 * lines unnumbered; a view (--head, --tail, --grep, --lines) numbers each
 * line. `explain logs` used to say every line came back with its number, so
 * a reader of the default view looked for numbers that were not there: it
 * says which views number their lines.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

interface Pkg {
  evidence: Array<{ excerpt: string }>;
}
const excerptOf = (args: string[]) => {
  const run = cli(home, ['logs', ...args, '--json']);
  expect(run.code, run.stderr).toBe(0);
  return (JSON.parse(run.stdout) as Pkg).evidence[0]!.excerpt;
};

describe('logs without a view', () => {
  it('returns the excerpt unnumbered, as explain logs says, where a view numbers its lines', () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    expect(cli(home, ['run', '--job-id', 'job-1', 'w', 'echo', 'first']).code).toBe(0);
    expect(excerptOf(['job-1'])).toMatch(/^first$/m);
    expect(excerptOf(['job-1', '--head', '5'])).toMatch(/^1: first$/m);
    const explained = cli(home, ['explain', 'logs']).stdout.replace(/\s+/g, ' ');
    expect(explained).toContain('each line of a view comes back with its number');
    expect(explained).toMatch(/Without a view, logs JOB returns the excerpt .*unnumbered/);
  });
});
