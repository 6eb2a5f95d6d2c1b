/**
 * `headspace batch frob` is a sub-command that does not exist: the refusal
 * names the ones that do (batch status, batch ls, batch wait, batch cancel,
 * and batch itself with its flags), whatever flags come before the stray word, instead
 * of commander's "too many arguments for 'batch'".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('batch with an unknown sub-command', () => {
  it.each([[['batch', 'frob']], [['batch', '--strategy', 'all', 'frob']]])('names the batch sub-commands for %j', (argv) => {
    const run = cli(home, argv);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('batch has no sub-command "frob"');
    for (const sub of ['headspace batch status', 'headspace batch ls', 'headspace batch wait', 'headspace batch cancel']) expect(run.stderr).toContain(sub);
    expect(run.stderr).not.toContain('too many arguments');
  });
});
