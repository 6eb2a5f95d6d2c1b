/**
 * A batch's evidence serves the reader who must act: when the batch did not
 * succeed, the failed jobs' output comes first and each failed job has a
 * next action returning all of its output (`logs`); when more jobs ended
 * than the result shows, the result says which were left out and how to get
 * each. It once showed only the winners' output, or only the first of an
 * exhausted any's failures with "Suggested attention (none)", and dropped
 * jobs past the second without a word.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

interface Pkg {
  evidence: Array<{ label: string; text?: string; lines?: string[] }>;
  warnings: string[];
  attention: Array<{ text: string; job_id?: string; action?: { verb: string; args: { jobId?: string } } }>;
}
const logsFor = (pkg: Pkg) => pkg.attention.filter((a) => a.action?.verb === 'logs').map((a) => a.action!.args.jobId);

describe("a batch's evidence", () => {
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'w', '--concurrency', '2']).code).toBe(0);
  });

  it("puts an allSettled batch's failed job first, with a logs call for it", () => {
    const run = runBatch(
      home,
      ['--strategy', 'allSettled'],
      [
        { workspace: 'w', command: 'echo fine', name: 'good' },
        { workspace: 'w', command: 'fail 3', name: 'bad' },
      ],
    );
    expect(run.code, run.stderr).toBe(6);
    const pkg = JSON.parse(run.stdout) as Pkg;
    expect(pkg.evidence[0]!.label).toMatch(/^bad \(the deciding job\)/);
    expect(JSON.stringify(pkg.evidence[0])).toContain('failing with status 3');
    expect(JSON.stringify(pkg.evidence)).toContain('fine');
    const bad = memberLines(run.pkg!).find((l) => l.text.startsWith('bad'))!;
    expect(logsFor(pkg)).toContain(bad.id);
  });

  it('shows every failure of an exhausted any, each with a logs call', () => {
    const run = runBatch(
      home,
      ['--strategy', 'any'],
      [
        { workspace: 'w', command: 'fail 3', name: 'one' },
        { workspace: 'w', command: 'fail 4', name: 'two' },
      ],
    );
    expect(run.pkg!.status).toBe('any_exhausted');
    const pkg = JSON.parse(run.stdout) as Pkg;
    expect(pkg.evidence.map((e) => e.label.split(' ')[0])).toEqual(['one', 'two']);
    expect(logsFor(pkg).sort()).toEqual(
      memberLines(run.pkg!)
        .map((l) => l.id)
        .sort(),
    );
  });

  it('names the jobs whose output it left out, with a logs call for each', () => {
    const jobs = Array.from({ length: 7 }, (_, i) => ({ workspace: 'w', command: `echo out-${i + 1}`, name: `j${i + 1}` }));
    const run = runBatch(home, ['--strategy', 'all'], jobs);
    expect(run.code, run.stderr).toBe(0);
    const pkg = JSON.parse(run.stdout) as Pkg;
    expect(pkg.evidence).toHaveLength(5);
    const shown = new Set(pkg.evidence.map((e) => e.label.split(' ')[0]));
    const left = jobs.map((j) => j.name).filter((n) => !shown.has(n));
    expect(left).toHaveLength(2);
    const warning = pkg.warnings.find((w) => w.includes('2 more job(s) is not shown'));
    expect(warning).toBeDefined();
    for (const name of left) expect(warning).toContain(name);
    const ids = memberLines(run.pkg!)
      .filter((l) => left.includes(l.text.split(/[: ]/)[0]!))
      .map((l) => l.id);
    for (const id of ids) expect(logsFor(pkg)).toContain(id);
  });
});
