/**
 * `create --network enabled` is refused (exit 3) with the truth, said once:
 * no provider offers a workspace open network access, and a per-host
 * allow-list is what to ask for instead (`--network allow=…`, #18). The refusal does not
 * send the caller to `doctor` (nothing on the host would fix it) and
 * creates nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe('create --network enabled', () => {
  it('is refused with exit 3, saying once that no provider offers open network', () => {
    const run = cli(home, ['create', '--workspace-id', 'open', '--network', 'enabled']);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(occurrences(run.stderr, 'no provider offers')).toBe(1);
    expect(run.stderr).toContain('network allow=');
    expect(occurrences(run.stderr.toLowerCase(), 'network:')).toBe(0);
    expect(run.stderr).not.toContain('doctor');
  });

  it('says it once in the JSON error too, with a remediation', () => {
    const run = cli(home, ['create', '--workspace-id', 'open', '--network', 'enabled', '--json']);
    expect(run.code).toBe(3);
    const error = JSON.parse(run.stderr) as { message: string; remediation: string; category: string };
    expect(error.category).toBe('policy_denied');
    expect(occurrences(`${error.message}\n${error.remediation}`, 'no provider offers')).toBe(1);
    expect(error.remediation).toMatch(/--network allow=/);
  });

  it('creates nothing', () => {
    const listed = JSON.parse(cli(home, ['ls', '--all', '--json']).stdout) as { key_findings: unknown[] };
    expect(listed.key_findings).toEqual([]);
  });
});
