/**
 * A failed `all` or `allSettled` batch marks the job whose failure decided
 * it `[deciding job]` (role deciding under --json), as race marks its failed
 * first job: all's first failure, allSettled's first failure (its status is
 * the batch's). Before, the join recorded no member for a failed `all` and
 * only the successes for `allSettled`, so the failure that decided was shown
 * unmarked, against the README and `explain batch`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { memberLines, runBatch } from '../../helpers/batch.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);
beforeAll(() => {
  expect(cli(home, ['create', '--workspace-id', 'w', '--concurrency', '2']).code).toBe(0);
});

const line = (lines: ReturnType<typeof memberLines>, name: string) => lines.find((l) => l.text.startsWith(`${name} `) || l.text.startsWith(`${name}:`))!;

describe('a failed all or allSettled batch', () => {
  it("marks all's first failure as the deciding job, and no cancelled job", () => {
    const run = runBatch(
      home,
      ['--strategy', 'all', '--concurrency', '2'],
      [
        { workspace: 'w', command: 'fail 1', name: 'bad' },
        { workspace: 'w', command: 'block', name: 'slow' },
      ],
    );
    expect(run.code, run.stderr).toBe(6);
    const lines = memberLines(run.pkg!);
    expect(line(lines, 'bad').text).toMatch(/^bad \[deciding job\]: failure \(exit 1\)/);
    expect(line(lines, 'bad')).toMatchObject({ role: 'deciding' });
    expect(line(lines, 'slow').text).toMatch(/^slow: cancelled/);
    expect(line(lines, 'slow')).not.toHaveProperty('role');
  });

  it("marks allSettled's first failure as the deciding job, the later failure not, the success a winner", () => {
    const run = runBatch(
      home,
      ['--strategy', 'allSettled', '--concurrency', '1'],
      [
        { workspace: 'w', command: 'true', name: 'good' },
        { workspace: 'w', command: 'fail 3', name: 'first' },
        { workspace: 'w', command: 'fail 4', name: 'later' },
      ],
    );
    expect(run.code, run.stderr).toBe(6);
    const lines = memberLines(run.pkg!);
    expect(line(lines, 'first').text).toMatch(/^first \[deciding job\]: failure \(exit 3\)/);
    expect(line(lines, 'later').text).toMatch(/^later: failure \(exit 4\)/);
    expect(line(lines, 'good').text).toMatch(/^good \[winner\]: success/);
  });
});
