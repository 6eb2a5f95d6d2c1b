/**
 * `batch --spec -` (#16) reads the spec from stdin, as YAML (JSON is YAML
 * too), with a command given as words or as argv.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cli, makeHome, serveModeEnv } from '../../helpers/cli.js';
import { memberLines, type BatchPackage } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('batch --spec -', () => {
  it('reads a YAML spec from stdin', () => {
    expect(cli(home, ['create', '--workspace-id', 'pool']).code).toBe(0);
    const yaml = ['jobs:', '  - workspace: pool', '    command: echo from words', '  - workspace: pool', '    command: [echo, from, argv]', ''].join('\n');
    const run = spawnSync(BIN, ['batch', '--strategy', 'allSettled', '--spec', '-', '--json'], {
      input: yaml,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/root',
        HEADSPACE_HOME: home,
        HEADSPACE_PROVIDER: 'fake',
        ...serveModeEnv({}),
      },
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = memberLines(JSON.parse(run.stdout) as BatchPackage);
    expect(lines.map((l) => l.text.replace(/, job .*/, ''))).toEqual([
      'job-1 [winner]: success (exit 0) — echo from words in pool',
      'job-2 [winner]: success (exit 0) — echo from argv in pool',
    ]);
  });
});
