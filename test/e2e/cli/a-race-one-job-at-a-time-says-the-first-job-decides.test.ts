/**
 * A race at concurrency 1 runs its jobs one at a time: the first in the spec
 * ends first and decides, and the rest never start. The result says so, with
 * the concurrency that would race them all (a new user's race always "won"
 * with its first job and nothing said why); at full concurrency it says
 * nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('a race one job at a time', () => {
  it('warns that the first job decides, naming the concurrency that races them all', () => {
    cli(home, ['create', '--workspace-id', 'a']);
    cli(home, ['create', '--workspace-id', 'b']);
    const jobs = [
      { workspace: 'a', command: ['true'] },
      { workspace: 'b', command: ['true'] },
    ];
    const serial = runBatch(home, ['--strategy', 'race'], jobs);
    expect(serial.pkg?.warnings.join('\n')).toContain('race at concurrency 1 runs one job at a time: the first to end decides');
    expect(serial.pkg?.warnings.join('\n')).toContain('give concurrency 2 to start all 2 at once');
    const raced = runBatch(home, ['--strategy', 'race', '--concurrency', '2'], jobs);
    expect(raced.pkg?.warnings.join('\n') ?? '').not.toContain('race at concurrency');
  });
});
