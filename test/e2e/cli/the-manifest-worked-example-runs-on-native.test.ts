/**
 * The README's manifest version of the worked example (#17), taken from the
 * README itself and run through the built bin on native: plan changes
 * nothing, prepare makes the workspace and runs the setup, a second prepare
 * does nothing, status finds the workspace from the directory, the artifact
 * exports, destroy removes it. The README's refusal example holds too.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, makeHome, REPO, serveModeEnv } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const readiness = await nativeReadiness();

const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
const manifest = /```yaml\n(# headspace\.yml\n[\s\S]*?)```/.exec(readme)![1]!;
const program = /python3 -c "\n([\s\S]*?)"\n# headspace result/.exec(readme)![1]!;

/** The bin run from a directory, as a person would. */
function hs(cwd: string, args: string[]) {
  const run = spawnSync(BIN, args, {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/root',
      HEADSPACE_HOME: home,
      HEADSPACE_PROVIDER: 'native',
      ...serveModeEnv({}),
    },
    timeout: 120_000,
  });
  return { code: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

describe.runIf(readiness.ready)(`the README's manifest example, on native (${readiness.reason})`, () => {
  it('plans, prepares once, finds the workspace with status, exports and destroys', () => {
    const dir = join(home, 'pi');
    mkdirSync(join(dir, 'deeper'), { recursive: true });
    writeFileSync(join(dir, 'headspace.yml'), manifest);
    writeFileSync(join(dir, 'pi.py'), program);

    const plan = hs(dir, ['plan']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('plan for workspace demo: 6 step(s); ready; prepare would create workspace demo');
    expect(hs(dir, ['ls']).stdout).not.toContain('demo');

    const prepared = hs(dir, ['prepare']);
    expect(prepared.code, prepared.stderr).toBe(0);
    expect(prepared.stdout).toContain(`workspace demo is prepared from ${join(dir, 'headspace.yml')}: 6 step(s) done`);
    // The verify section is judged as the setup job's checks and recorded in the receipt.
    expect(prepared.stdout).toContain('verification passed: 2 of 2 checks passed');
    expect(JSON.parse(readFileSync(join(home, 'receipts', 'demo.json'), 'utf8'))).toMatchObject({ verification: { outcome: 'passed' } });
    const again = hs(dir, ['prepare', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ outcome_summary: expect.stringMatching(/nothing was done$/) });

    const status = hs(join(dir, 'deeper'), ['status']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('pi=3.1415926536 check_passed=True');
    expect(status.stdout).toContain(`found from ${join(dir, 'headspace.yml')}`);

    expect(hs(dir, ['export', 'demo', 'report.json', '--to', './report.json']).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))).toEqual({ pi: 3.1415926536, check_passed: true });
    expect(hs(dir, ['destroy', 'demo']).code).toBe(0);
  });

  it("refuses the README's escaping input naming its key path and line, and makes nothing", () => {
    const dir = join(home, 'escape');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'headspace.yml'), manifest.replace('- path: pi.py', '- path: ../secret').replace('id: demo', 'id: escaped'));
    const refused = hs(dir, ['prepare']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`inputs[0].path, line 11: '../secret' contains '..'`);
    expect(existsSync(join(home, 'receipts', 'escaped.json'))).toBe(false);
    expect(hs(dir, ['ls', '--all']).stdout).not.toContain('escaped');
  });
});
