/**
 * Forks made for a batch's fork: jobs (#16, "fork N, keep one") outlive the
 * batch only when they hold an answer: a winner's fork is kept, and so, when
 * the batch did not succeed, is each failed job's (its evidence); the forks
 * of jobs the batch cancelled, and in a successful batch every other fork,
 * are destroyed through destroy when the batch settles, and the result says
 * which and what was removed. --keep-forks keeps them all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch, type BatchFinding, type BatchPackage } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

interface CleanupFinding {
  kind: string;
  text: string;
  forks_destroyed?: string[];
  forks_kept?: Array<{ workspace_id: string; why: string }>;
}

/** Each job's fork, by job name. */
function forksOf(pkg: BatchPackage): Record<string, string> {
  return Object.fromEntries(memberLines(pkg).map((l: BatchFinding) => [l.text.split(/[: ]/)[0]!, /in (\S+?),? /.exec(l.text)![1]!]));
}

function cleanupOf(pkg: BatchPackage): CleanupFinding {
  return pkg.key_findings.find((f) => typeof f === 'object' && f.kind === 'cleanup') as unknown as CleanupFinding;
}

/** A fork the batch destroyed is gone through destroy's path; a kept one still takes a job. */
function isDestroyed(ws: string): boolean {
  const seen = cli(home, ['inspect', ws, '--json']);
  return JSON.parse(seen.stdout || '{}').outcome_summary?.includes('destroyed') === true || cli(home, ['run', ws, 'true']).code !== 0;
}

describe('the forks of a settled batch', () => {
  beforeAll(() => {
    expect(cli(home, ['create', '--workspace-id', 'parent']).code).toBe(0);
  });

  it("keep the race winner's fork and destroy the cancelled loser's", () => {
    const run = runBatch(
      home,
      ['--strategy', 'race', '--concurrency', '2'],
      [
        { fork: 'parent', command: 'sleep 29.7', name: 'slow' },
        { fork: 'parent', command: ['write', 'answer.txt', '42'], name: 'fast' },
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    const forks = forksOf(run.pkg!);
    expect(cleanupOf(run.pkg!).forks_destroyed).toEqual([forks.slow]);
    expect(cleanupOf(run.pkg!).forks_kept?.map((k) => k.workspace_id)).toEqual([forks.fast]);
    expect(cleanupOf(run.pkg!).text).toMatch(/forks: 1 destroyed \(removed: .+\), 1 kept/);
    expect(isDestroyed(forks.slow!)).toBe(true);
    expect(cli(home, ['run', forks.fast!, 'cat', 'answer.txt']).stdout).toContain('42');
    expect(memberLines(run.pkg!).find((l) => l.text.startsWith('slow'))!.text).toContain('its fork was destroyed when the batch settled');
  });

  it("destroy a failed attempt's fork once another attempt won", () => {
    const run = runBatch(
      home,
      ['--strategy', 'any', '--concurrency', '1'],
      [
        { fork: 'parent', command: 'false', name: 'bad' },
        { fork: 'parent', command: 'true', name: 'good' },
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    const forks = forksOf(run.pkg!);
    expect(isDestroyed(forks.bad!)).toBe(true);
    expect(isDestroyed(forks.good!)).toBe(false);
  });

  it("keep a failed batch's failure as evidence and destroy the job it cancelled", () => {
    const run = runBatch(
      home,
      ['--strategy', 'all', '--concurrency', '2'],
      [
        { fork: 'parent', command: ['sh', '-c', 'echo the-evidence; exit 3'], name: 'broken' },
        { fork: 'parent', command: 'sleep 29.7', name: 'slow' },
      ],
    );
    expect(run.code, run.stderr).toBe(6);
    const forks = forksOf(run.pkg!);
    expect(isDestroyed(forks.slow!)).toBe(true);
    expect(isDestroyed(forks.broken!)).toBe(false);
    expect(run.stdout).toContain('the-evidence');
    expect(cleanupOf(run.pkg!).forks_kept).toEqual([{ workspace_id: forks.broken, why: 'it holds the evidence of a job that ended failure' }]);
    // The failure decided the batch (the deciding job), yet its fork is evidence, never work to seal.
    expect(run.stdout).not.toContain('seal it to propose it');
  });

  it('are all kept with --keep-forks', () => {
    const run = runBatch(
      home,
      ['--strategy', 'race', '--concurrency', '2', '--keep-forks'],
      [
        { fork: 'parent', command: 'sleep 29.7', name: 'slow' },
        { fork: 'parent', command: 'true', name: 'fast' },
      ],
    );
    expect(run.code, run.stderr).toBe(0);
    const forks = forksOf(run.pkg!);
    expect(cleanupOf(run.pkg!).forks_destroyed).toEqual([]);
    expect(isDestroyed(forks.slow!)).toBe(false);
    expect(isDestroyed(forks.fast!)).toBe(false);
  });
});
