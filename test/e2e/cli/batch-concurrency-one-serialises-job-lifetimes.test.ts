/**
 * `batch --concurrency 1` (#16) holds its one slot until the job's terminal
 * record, not merely its launch: the recorded lifetimes of its jobs never
 * overlap (each starts at or after the previous one's recorded end).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

describe('batch --concurrency 1', () => {
  it('runs one job at a time: no two recorded lifetimes overlap', () => {
    expect(cli(home, ['create', '--workspace-id', 'pool', '--concurrency', '4']).code).toBe(0);
    const jobs = ['a', 'b', 'c', 'd'].map((name) => ({ workspace: 'pool', command: 'sleep 0.2', name }));
    const run = runBatch(home, ['--strategy', 'allSettled', '--concurrency', '1'], jobs);
    expect(run.code, run.stderr).toBe(0);
    const lives = memberLines(run.pkg!)
      .map((l) => ({ start: Date.parse(l.started_at!), end: Date.parse(l.finished_at!) }))
      .sort((x, y) => x.start - y.start);
    expect(lives).toHaveLength(4);
    for (let i = 1; i < lives.length; i++) expect(lives[i]!.start).toBeGreaterThanOrEqual(lives[i - 1]!.end);
  });
});
