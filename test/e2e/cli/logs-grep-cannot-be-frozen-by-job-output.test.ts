/**
 * A job controls what `logs --grep` searches, so a backtracking pattern over
 * its output must not freeze the bin (#10 item 9): the red team's 260 KB
 * line of repeated words with `(\w+\s?)*$` now returns at once, and syntax
 * that needs backtracking (backreferences, lookaround) is refused with
 * exit 1 and a hint saying so.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

beforeAll(() => {
  const input = join(home, 'words.txt');
  writeFileSync(input, `${'word '.repeat(52_000)}\nerror: the real line\n`);
  expect(cli(home, ['create', '--workspace-id', 'grep-ws']).code).toBe(0);
  const run = cli(home, ['run', '--job-id', 'grep-job', '--input', `words.txt=${input}`, 'grep-ws', 'cat', 'words.txt']);
  expect(run.code, run.stderr).toBe(0);
});

describe('logs --grep over hostile output', () => {
  it('matches a backtracking pattern against a 260 KB line of words in well under a second of matching', () => {
    const started = Date.now();
    const run = cli(home, ['logs', 'grep-job', '--grep', '(\\w+\\s?)*$', '--json']);
    expect(run.code, run.stderr).toBe(0);
    // Node start and the store dominate; the red team's run took over 30 s.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(run.stdout).toContain('2 line(s) selected of 2');
  });

  it('finds an ordinary pattern', () => {
    const run = cli(home, ['logs', 'grep-job', '--grep', '^error:']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('2: error: the real line');
  });

  it.each([
    ['a backreference', '(word) \\1'],
    ['a lookahead', 'word(?= )'],
  ])('refuses %s with exit 1 and a hint naming what is unsupported', (_what, pattern) => {
    const run = cli(home, ['logs', 'grep-job', '--grep', pattern]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: .+\nhint: .*backreferences.*lookaround.*\n$/);
  });
});
