/**
 * On the fake provider a network allow-list is simulated, decision for
 * decision (#18): the interpreter's `fetch URL` asks the engine's egress
 * decision, an allowed host answers, a denied one fails the job with the
 * reason, and the result says `network: N allowed to H hosts, M denied: …`.
 * The policy labels network `simulated` with the allow-list's digest, and
 * inspect shows the journalled summary again.
 * `enabled` stays refused; a bad pattern is a bad argument (exit 1).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a network allow-list on the fake provider', () => {
  it('is created with network labelled simulated and pinned by the allow-list digest', () => {
    const made = cli(home, ['create', '--workspace-id', 'net', '--network', 'allow=api.test', '--network', 'allow=*.pkg.test:8443', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const network = (
      JSON.parse(made.stdout) as { provenance: { policy_summary: Array<{ name: string; value: string; label: string }> } }
    ).provenance.policy_summary.find((l) => l.name === 'network')!;
    expect(network.label).toBe('simulated');
    expect(network.value).toMatch(/^allow-list sha256:[0-9a-f]{12}: \*\.pkg\.test:8443, api\.test$/);
  });

  it('lets an allowed fetch through and summarises every decision in the result', () => {
    const run = cli(home, ['run', '--json', 'net', 'fetch', 'https://api.test/v1', '&&', 'fetch', 'https://a.pkg.test:8443/x']);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { key_findings: string[] };
    expect(result.key_findings).toContain('network: 2 allowed to 2 hosts (0 bytes sent, 0 received), 0 denied');
  });

  it('fails a fetch to a host not in the list, with the denial in the result', () => {
    const run = cli(home, ['run', 'net', 'fetch', 'https://api.test/', '&&', 'fetch', 'http://evil.test/?token=abc']);
    expect(run.code).toBe(6);
    expect(run.stdout).toContain('network: 1 allowed to 1 host (0 bytes sent, 0 received), 1 denied: evil.test (not in allow-list)');
    expect(run.stdout).toContain('denied by the egress proxy (not in allow-list)');
    expect(run.stdout).not.toContain('token=abc (');
  });

  it('shows the same journalled summary when the job is inspected later', () => {
    const run = JSON.parse(cli(home, ['run', '--json', 'net', 'fetch', 'https://nope.test/']).stdout) as { provenance: { job_id: string } };
    const inspected = cli(home, ['inspect', run.provenance.job_id]);
    expect(inspected.stdout).toContain('network: 0 allowed to 0 hosts, 1 denied: nope.test (not in allow-list)');
  });

  it('gives a workspace without an allow-list no network at all', () => {
    expect(cli(home, ['create', '--workspace-id', 'closed']).code).toBe(0);
    const run = cli(home, ['run', 'closed', 'fetch', 'https://api.test/']);
    expect(run.code).toBe(6);
    expect(run.stdout).not.toContain('network:');
  });

  it('refuses a malformed pattern as a bad argument, creating nothing', () => {
    const bad = cli(home, ['create', '--workspace-id', 'bad', '--network', 'allow=*.com']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("'*.com'");
  });
});
