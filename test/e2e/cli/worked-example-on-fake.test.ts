/**
 * The worked example end to end through the built bin: create, run, inspect,
 * logs, destroy — each a bounded result on stdout, exit codes from status,
 * markdown and JSON carrying the same content.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('the worked example', () => {
  it('creates, runs, inspects, reads logs and destroys', () => {
    const create = cli(home, ['create', '--workspace-id', 'demo', '--purpose', 'worked example']);
    expect(create.code, create.stderr).toBe(0);
    expect(create.stdout).toContain('workspace demo is ready on fake');
    expect(create.stderr).toBe('');

    const run = cli(home, ['run', '--job-id', 'job-pi', 'demo', 'echo', 'pi=3.1415926536', 'check_passed=true']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('pi=3.1415926536 check_passed=true');

    const json = cli(home, ['inspect', 'job-pi', '--json']);
    const pkg = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(Object.keys(pkg)).toEqual([
      'outcome_summary',
      'status',
      'key_findings',
      'evidence',
      'artifacts',
      'warnings',
      'resource_usage',
      'provenance',
      'attention',
    ]);
    expect(pkg.status).toBe('success');
    const markdown = cli(home, ['inspect', 'job-pi']);
    expect(markdown.stdout).toContain(pkg.outcome_summary as string);

    const failing = cli(home, ['run', 'demo', 'fail', '3']);
    expect(failing.code).toBe(6);
    expect(failing.stdout).toContain('failed with exit status 3');

    const logs = cli(home, ['logs', 'job-pi', '--grep', 'pi=']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('1: pi=3.1415926536');

    const ws = cli(home, ['inspect', 'demo']);
    expect(ws.stdout).toContain('2 job(s)');

    const destroy = cli(home, ['destroy', 'demo']);
    expect(destroy.code).toBe(0);
    expect(destroy.stdout).toContain('lifecycle path: ready -> cancelled -> destroyed');

    const after = cli(home, ['inspect', 'demo']);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('destroyed workspace');
  });
});
