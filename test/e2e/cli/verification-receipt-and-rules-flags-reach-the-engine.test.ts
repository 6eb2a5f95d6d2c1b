/**
 * The CLI face of #16, through the built bin on the fake provider: run's
 * --verify is split into words without a shell (an operator is refused,
 * exit 1, before anything runs), a verifier fault exits 9, `receipt JOB
 * --out FILE` and `receipt verify FILE` round-trip (exit 0; 6 once the file
 * is edited), and `create --rule` / `rules WS …` manage rules whose
 * refusals exit 3.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('the CLI flags and verbs of verification, receipts and rules', () => {
  it('refuses a --verify with a shell operator before anything runs', () => {
    expect(cli(home, ['create', '--workspace-id', 'v']).code).toBe(0);
    const run = cli(home, ['run', '--verify', 'test -f a && cat a', 'v', 'true']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("'&' is a shell operator");
    expect(cli(home, ['inspect', 'v']).stdout).not.toMatch(/job-[0-9a-f]{6}/);
  });

  it('exits 9 for a verifier fault and 0 when the checks pass', () => {
    expect(cli(home, ['run', '--verify', 'no-such-checker', 'v', 'true']).code).toBe(9);
    const ok = cli(home, ['run', '--expect-file', 'a.txt', '--expect-output', 'hi', '--verify', 'cat a.txt', 'v', 'write', 'a.txt', 'x', '&&', 'echo', 'hi']);
    expect(ok.code, ok.stdout).toBe(0);
  });

  it('writes a receipt file that receipt verify accepts, and refuses once edited', () => {
    const run = cli(home, ['run', '--json', 'v', 'echo', 'hello']);
    const { job_id: jobId, receipt_sha256: pinned } = (JSON.parse(run.stdout) as { provenance: { job_id: string; receipt_sha256: string } }).provenance;
    const file = join(home, 'r.json');
    expect(cli(home, ['receipt', jobId, '--out', file]).code).toBe(0);
    expect(cli(home, ['receipt', 'verify', file, '--expect-sha256', pinned]).code).toBe(0);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"status":"success"', '"status":"failure"'));
    const edited = cli(home, ['receipt', 'verify', file]);
    expect(edited.code).toBe(6);
    expect(edited.stdout).toContain('does NOT verify');
  });

  it('adds rules at create and with rules, and refuses a denied command with exit 3', () => {
    expect(cli(home, ['create', '--workspace-id', 'g', '--rule', 'deny-command:cat']).code).toBe(0);
    expect(cli(home, ['rules', 'g', 'add', 'stuck:2:block']).code).toBe(0);
    const listed = cli(home, ['rules', 'g', '--json']);
    expect((JSON.parse(listed.stdout) as { key_findings: string[] }).key_findings).toEqual(['rule deny-command:cat', 'rule stuck:2:block']);
    const denied = cli(home, ['run', 'g', 'cat', 'x']);
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain('rule deny-command:cat');
    expect(cli(home, ['rules', 'g', 'remove', 'deny-command:cat']).code).toBe(0);
    expect(cli(home, ['run', 'g', 'cat', 'x']).code).toBe(6);
  });
});
