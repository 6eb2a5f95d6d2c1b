/**
 * Through `headspace serve` a call's exit code, stdout and stderr are the
 * in-process CLI's, byte for byte: help, introspection, listings, usage
 * errors, refusals and a job's result (its ids and times aside).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const CALLS: string[][] = [
  [],
  ['--help'],
  ['run', '--help'],
  ['explain', 'exit-codes'],
  ['learn', '--json'],
  ['version'],
  ['ls'],
  ['inspect', 'ws-nope'],
  ['inspect', 'ws-nope', '--json'],
  ['ls', '--bogus'],
  ['frobnicate'],
  ['create', '--workspace-id', 'w'],
  ['run', 'w', '--json'],
  ['run', '--env', 'UNSET_HERE', 'w', 'echo', 'x'],
];

describe('a call through headspace serve', () => {
  it.each(CALLS.map((argv) => [argv.join(' ') || '(no arguments)', argv] as const))('answers %s exactly as in-process', (_name, argv) => {
    // A second create of w is refused alike in both modes.
    if (argv[0] === 'create') cli(home, argv, { HEADSPACE_SERVE: 'off' });
    expect(cli(home, argv, { HEADSPACE_SERVE: 'require' })).toEqual(cli(home, argv, { HEADSPACE_SERVE: 'off' }));
  });

  it("answers a job's run with the in-process bytes, ids and times aside", () => {
    const mask = (text: string) =>
      text
        .replace(/(job|trace|ws)-[0-9a-f]{6,}/g, '$1-X')
        .replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'T')
        .replace(/wall [\d.]+ s/g, 'wall N s');
    const [a, b] = [
      cli(home, ['run', 'w', 'echo', 'hello'], { HEADSPACE_SERVE: 'require' }),
      cli(home, ['run', 'w', 'echo', 'hello'], { HEADSPACE_SERVE: 'off' }),
    ];
    expect(a.code).toBe(0);
    expect({ ...a, stdout: mask(a.stdout) }).toEqual({ ...b, stdout: mask(b.stdout) });
  });
});
