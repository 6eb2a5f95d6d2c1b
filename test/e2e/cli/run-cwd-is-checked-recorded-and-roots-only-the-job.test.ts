/**
 * `run --cwd DIR` moves only the job (#12 item 9): DIR must be a directory
 * in the workspace, or the run is refused with exit 1 and a hint before any
 * job is recorded (it used to be an infrastructure failure, exit 7, with a
 * job record); the directory is recorded in provenance; `--declare` names
 * stay relative to the workspace root, and a declared artifact the job did
 * not produce there is a warning that names where it was looked for and
 * what the job wrote under DIR instead.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

interface Pkg {
  status: string;
  warnings: string[];
  provenance: { cwd?: string; job_id: string };
}

describe('run --cwd', () => {
  it('refuses a directory that does not exist with exit 1, once, and records no job', () => {
    expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
    const run = cli(home, ['run', '--cwd', 'nope', 'w', 'echo', 'hi']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.match(/nope/g)?.length).toBeLessThanOrEqual(2); // the message and its hint; never repeated as a warning
    expect(run.stderr).toMatch(/error: the working directory \(cwd\) 'nope' does not exist in workspace w/);
    expect(run.stderr).toMatch(/hint: .*ls-files w/);
    expect(cli(home, ['inspect', 'w']).stdout).toContain('0 job(s)');
  });

  it('records the directory in provenance, in markdown and JSON', () => {
    expect(cli(home, ['run', 'w', 'write', 'sub/keep', 'x']).code).toBe(0);
    const json = cli(home, ['run', '--json', '--cwd', 'sub', 'w', 'echo', 'in sub']);
    expect(json.code, json.stderr).toBe(0);
    const pkg = JSON.parse(json.stdout) as Pkg;
    expect(pkg.provenance.cwd).toBe('/workspace/sub');
    expect(cli(home, ['inspect', pkg.provenance.job_id]).stdout).toContain('- working directory: /workspace/sub');
    const atRoot = JSON.parse(cli(home, ['run', '--json', 'w', 'true']).stdout) as Pkg;
    expect(atRoot.provenance.cwd).toBeUndefined();
  });

  it('keeps declared names workspace-relative and warns when the job wrote the file under --cwd instead', () => {
    const run = cli(home, ['run', '--json', '--cwd', 'sub', '--declare', 'report.json=the report', 'w', 'write', 'report.json', '{}']);
    expect(run.code, run.stderr).toBe(0);
    const pkg = JSON.parse(run.stdout) as Pkg;
    expect(pkg.warnings.join('\n')).toContain("declared artifact 'report.json' was not produced at /workspace/report.json");
    expect(pkg.warnings.join('\n')).toContain("the job wrote 'sub/report.json'");
  });

  it('warns about a declared artifact that was not produced at all, and not about one that was', () => {
    const missing = JSON.parse(cli(home, ['run', '--json', '--declare', 'typo.txt=x', 'w', 'true']).stdout) as Pkg;
    expect(missing.warnings.join('\n')).toContain("declared artifact 'typo.txt' was not produced: there is no file /workspace/typo.txt");
    const made = JSON.parse(cli(home, ['run', '--json', '--declare', 'made.txt=x', 'w', 'write', 'made.txt', 'ok']).stdout) as Pkg;
    expect(made.warnings.join('\n')).not.toContain('made.txt');
  });
});
