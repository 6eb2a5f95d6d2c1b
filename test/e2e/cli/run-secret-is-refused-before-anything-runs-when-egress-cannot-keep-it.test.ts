/**
 * `run --secret NAME@HOST` (#18 item 3) fails closed: with no allow-list
 * (nothing could substitute the value), a HOST the allow-list does not cover
 * (the proxy would never reach it) or NAME unset in the caller's environment,
 * it is refused with exit 3 and a remedy before anything is recorded or runs,
 * and the value is never echoed.
 */
import { afterAll, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
const VALUE = 'hs-planted-secret-value-123';
const env = { HEADSPACE_PROVIDER: 'fake', TOKEN: VALUE };

const jobsOf = (ws: string) => JSON.parse(cli(home, ['inspect', ws, '--json'], env).stdout).key_findings.join('\n') as string;

it('refuses a secret in a workspace without an allow-list, pointing at one', () => {
  expect(cli(home, ['create', '--workspace-id', 'closed'], env).code).toBe(0);
  const run = cli(home, ['run', '--secret', 'TOKEN@api.test', 'closed', 'echo', 'ran'], env);
  expect(run.code).toBe(3);
  expect(run.stderr).toContain('a secret needs a workspace with a network allow-list');
  expect(run.stderr).toContain('network allow=HOST');
  expect(run.stderr).not.toContain(VALUE);
  expect(jobsOf('closed')).not.toMatch(/job-/);
});

it('refuses a secret for a host the allow-list does not cover, naming the list', () => {
  expect(cli(home, ['create', '--workspace-id', 'net', '--network', 'allow=api.test,*.example.com'], env).code).toBe(0);
  for (const host of ['other.test', 'api.test:8443', '*.x.test', 'example.com']) {
    const run = cli(home, ['run', '--secret', `TOKEN@${host}`, 'net', 'echo', 'ran'], env);
    expect(run.code, host).toBe(3);
    expect(run.stderr).toContain("which the workspace's allow-list does not cover");
    expect(run.stderr).toContain('the allow-list is *.example.com, api.test');
    expect(run.stderr).not.toContain(VALUE);
  }
  // Covered: an exact host, a host under a listed wildcard, a narrower wildcard.
  for (const host of ['api.test', 'api.example.com', '*.eu.example.com'])
    expect(cli(home, ['run', '--secret', `TOKEN@${host}`, 'net', 'true'], env).code, host).toBe(0);
});

it('refuses a secret whose variable is not set, before anything runs', () => {
  const run = cli(home, ['run', '--secret', 'NOT_SET_ANYWHERE@api.test', 'net', 'echo', 'ran'], env);
  expect(run.code).toBe(3);
  expect(run.stderr).toContain('NOT_SET_ANYWHERE: the variable is not set in your environment');
  expect(run.stderr).toContain('export NOT_SET_ANYWHERE=');
  expect(jobsOf('net')).not.toContain('ran echo ran');
});

it('refuses a value that would split a header, without echoing it', () => {
  const run = cli(home, ['run', '--secret', 'TOKEN@api.test', 'net', 'true'], { ...env, TOKEN: `${VALUE}\r\nX-Injected: 1` });
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('without CR, LF or NUL');
  expect(run.stderr).not.toContain(VALUE);
});
