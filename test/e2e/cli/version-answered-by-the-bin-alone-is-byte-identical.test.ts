/**
 * `headspace version` (and --version, -V, with or without --json) is answered
 * by the bin from dist/cli-bundle/build.json without loading the CLI bundle
 * (#20): its bytes and exit code are those of the CLI's own main().
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const MAIN = pathToFileURL(join(REPO, 'dist', 'cli', 'main.js')).href;

/** The per-file build's main(), run in a node of its own with the same argv. */
function mainItself(argv: string[]) {
  const script = `const { main } = await import(${JSON.stringify(MAIN)}); process.exitCode = await main(process.argv.slice(1));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script, '--', ...argv], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HEADSPACE_HOME: home },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('headspace version answered by the bin', () => {
  it.each([[['version']], [['version', '--json']], [['--version']], [['-V', '--json']]])('prints what main() prints for %j', (argv) => {
    expect(cli(home, argv)).toEqual(mainItself(argv));
  });
});
