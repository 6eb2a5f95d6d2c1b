/**
 * The verify section through the built bin on fake (#17 with #16): prepare
 * judges it as the last setup command's verification contract — exit 0
 * when every check passes, 6 when one fails, 9 when one reaches no verdict
 * — and its receipt records each check's outcome. A second prepare with
 * nothing changed does nothing (the checks are not run again). A change to
 * the verify section alone, or a recorded verdict that did not pass, makes
 * the next prepare judge the checks again after a no-op job, recreating
 * nothing and not running setup again; with an output check in the section
 * that needs --recreate, since only setup makes that output.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { makeProject } from '../../helpers/manifest-dir.js';

const { home, cleanup } = makeHome();
const project = makeProject();
afterAll(async () => {
  project.cleanup();
  await cleanup();
});

const base = 'schema: headspace.workspace/v1\nid: checked\nprovider: fake\nsetup:\n  - argv: [write, out.txt, built]\n  - argv: [echo, answer=42]\nverify:\n';
const file = join(project.dir, 'headspace.yml');
const receipt = () =>
  JSON.parse(readFileSync(join(home, 'receipts', 'checked.json'), 'utf8')) as {
    setup_jobs: string[];
    verify_job: string;
    verification: { outcome: string; checks: Array<{ kind: string; outcome: string; evidence_sha256: string | null }> };
  };
const prepare = (...args: string[]) => {
  const run = cli(home, ['prepare', file, '--json', ...args]);
  return { code: run.code, stderr: run.stderr, pkg: run.stdout === '' ? null : (JSON.parse(run.stdout) as { status: string; outcome_summary: string }) };
};

describe('prepare with a verify section', () => {
  it('judges it after the last setup job, records it, and re-judges only the checks after a change to them', () => {
    writeFileSync(file, `${base}  - output: '^answer=\\d+$'\n  - file: out.txt\n  - command: cat out.txt\n`);
    const first = prepare();
    expect(first.code, first.stderr).toBe(0);
    expect(first.pkg!.outcome_summary).toMatch(/receipt recorded \(manifest sha256:[0-9a-f]{64}\); verification passed: 3 of 3 checks passed$/);
    const recorded = receipt();
    expect(recorded.verify_job).toBe(recorded.setup_jobs[1]);
    expect(recorded.verification.checks.map((c) => [c.kind, c.outcome])).toEqual([
      ['expect-output', 'passed'],
      ['expect-file', 'passed'],
      ['verify', 'passed'],
    ]);
    expect(recorded.verification.checks.every((c) => /^sha256:[0-9a-f]{64}$/.test(c.evidence_sha256 ?? ''))).toBe(true);

    const again = prepare();
    expect(again.code).toBe(0);
    expect(again.pkg!.outcome_summary).toMatch(/nothing changed: nothing was done$/);
    expect(receipt().verify_job).toBe(recorded.verify_job);

    // A verify-only change with an output check: only a new prepare makes that output again.
    writeFileSync(file, `${base}  - output: '^answer=\\d+$'\n  - file: out.txt\n  - command: cat missing.txt\n`);
    const refused = prepare();
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the verify section changed, and its output checks judge the last setup command');
    expect(refused.stderr).toContain('--recreate');
  });

  it('with an output check, a failing verification points at recreate, not at a prepare it would refuse', () => {
    writeFileSync(file, `${base}  - output: '^answer=\\d+$'\n  - command: cat missing.txt\n`);
    const failed = cli(home, ['prepare', file, '--json', '--recreate']);
    expect(failed.code, failed.stderr).toBe(6);
    const attention = (JSON.parse(failed.stdout) as { attention: Array<{ text: string; action?: { args: Record<string, unknown> } }> }).attention;
    expect(attention[0]!.text).toMatch(/^fix the setup or the verify section, then prepare with recreate: its output checks judge/);
    expect(attention[0]!.action?.args).toMatchObject({ recreate: true });
  });

  it('without output checks, a failing check is exit 6 and the next prepare judges the checks again without recreating', () => {
    writeFileSync(file, `${base}  - file: out.txt\n`);
    expect(prepare('--recreate').code).toBe(0);
    const made = receipt().setup_jobs;

    writeFileSync(file, `${base}  - file: out.txt\n  - command: [cat, missing.txt]\n`);
    const plan = cli(home, ['plan', file]);
    expect(plan.stdout).toContain("the verify section changed: prepare would judge the verify section's checks again after a no-op job, recreating nothing");
    const failed = prepare();
    expect(failed.code).toBe(6);
    expect(failed.pkg!.status).toBe('failure');
    expect(failed.pkg!.outcome_summary).toMatch(
      /the verify section changed: verification failed: check 2 of 2 \(verify 1 of 1: cat missing\.txt\): exited 1; .*nothing was recreated, setup was not run again/,
    );
    expect(receipt()).toMatchObject({ setup_jobs: made, verification: { outcome: 'failed' } });

    // The workspace fixed by a run (kept: nothing is recreated): the verdict recorded did not pass, so prepare judges the checks again.
    expect(cli(home, ['run', 'checked', '--', 'write', 'missing.txt', 'now']).code).toBe(0);
    const fixed = prepare();
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.pkg!.outcome_summary).toContain('did not pass (failed): verification passed: 2 of 2 checks passed');
    expect(receipt()).toMatchObject({ setup_jobs: made, verification: { outcome: 'passed' } });
    expect(made).not.toContain(receipt().verify_job);
    expect(prepare().pkg!.outcome_summary).toMatch(/nothing was done$/);
  });

  it('a check that reaches no verdict is exit 9 (inconclusive), judged after a no-op job when there is no setup', () => {
    writeFileSync(file, 'schema: headspace.workspace/v1\nid: checked\nprovider: fake\nverify:\n  - command: [fail, "126"]\n');
    const run = prepare('--recreate');
    expect(run.code).toBe(9);
    expect(run.pkg!.status).toBe('inconclusive');
    expect(run.pkg!.outcome_summary).toContain('but verification reached no verdict (verifier fault): check 1 of 1 (verify fail 126)');
    expect(receipt()).toMatchObject({ setup_jobs: [], verification: { outcome: 'fault' } });
  });
});
