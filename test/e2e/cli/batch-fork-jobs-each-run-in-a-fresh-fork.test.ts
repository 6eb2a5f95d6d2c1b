/**
 * A batch job given as `fork: WS` (#16) runs in a fresh fork of WS, one fork
 * per job: each sees the parent's files, its changes stay its own, the
 * parent is untouched, and the forks are kept and named in the result.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('batch fork jobs', () => {
  it('run each in its own fresh fork of the parent', () => {
    expect(cli(home, ['create', '--workspace-id', 'parent']).code).toBe(0);
    expect(cli(home, ['run', 'parent', 'write', 'seed.txt', 'from-parent']).code).toBe(0);
    const run = runBatch(
      home,
      ['--strategy', 'allSettled', '--concurrency', '2'],
      [
        { fork: 'parent', command: ['cat', 'seed.txt', '&&', 'write', 'mine.txt', 'one'], name: 'one' },
        { fork: 'parent', command: ['cat', 'seed.txt', '&&', 'write', 'mine.txt', 'two'], name: 'two' },
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = memberLines(run.pkg!);
    expect(lines.map((l) => l.status)).toEqual(['success', 'success']);
    const forks = lines.map((l) => /in (\S+), job/.exec(l.text)?.[1]);
    expect(new Set(forks).size).toBe(2);
    expect(forks).not.toContain('parent');
    for (const [i, fork] of forks.entries()) {
      expect(cli(home, ['logs', lines[i]!.id!]).stdout).toContain('from-parent');
      expect(cli(home, ['run', fork!, 'cat', 'mine.txt']).stdout).toContain(i === 0 ? 'one' : 'two');
    }
    expect(cli(home, ['run', 'parent', 'cat', 'mine.txt']).code).not.toBe(0);
    for (const fork of forks) expect(run.stdout).toContain(`fork ${fork} of parent`);
  });
});
