/**
 * The README's "try two approaches, keep the better one" flow, end to end
 * through the built bin: fork ×2, run each approach, diff, seal, settle
 * select the better one into the parent and discard the other. On the fake
 * provider here; the same verbs run on native where its capabilities list
 * snapshots.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';

const { home, cleanup } = makeHome();
afterAll(cleanup);

const step = (args: string[]) => {
  const out = cli(home, args);
  expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
  return out.stdout;
};
const outputOf = (stdout: string) => /output: (out-\S+)/.exec(stdout)![1]!;

describe('try two approaches, keep the better one', () => {
  it('forks twice, diffs, seals, selects the better one into the parent and discards the other', () => {
    step(['create', '--workspace-id', 'app', '--purpose', 'pick the better solver']);
    step(['run', 'app', 'write', 'solver.txt', 'approach: none yet']);

    const forked = step(['fork', 'app', '--count', '2', '--workspace-id', 'try-greedy', '--workspace-id', 'try-exact']);
    expect(forked).toContain('workspace app forked into try-greedy, try-exact');

    step(['run', 'try-greedy', 'write', 'solver.txt', 'approach: greedy, score 71']);
    step(['run', 'try-exact', 'write', 'solver.txt', 'approach: exact, score 98']);
    step(['run', 'try-exact', 'write', 'notes/exact.md', 'branch and bound']);

    const diff = step(['diff', 'try-exact', '--patch']);
    expect(diff).toContain('since the fork baseline (from app): 2 change(s): 1 created, 1 modified, 0 deleted; 41 bytes of new content');
    expect(diff).toContain('-approach: none yet');
    expect(diff).toContain('+approach: exact, score 98');

    const exact = outputOf(step(['seal', 'try-exact']));
    const greedy = outputOf(step(['seal', 'try-greedy']));

    const selected = step(['settle', exact, 'select']);
    expect(selected).toContain(`output ${exact} is settled by select: 2 change(s) of try-exact are now in app`);
    expect(selected).toContain('reviewer deny-paths: allow');
    expect(step(['run', 'app', 'cat', 'solver.txt'])).toContain('approach: exact, score 98');

    const discarded = step(['settle', greedy, 'discard']);
    expect(discarded).toContain('try-greedy destroyed');

    const again = cli(home, ['settle', exact, 'select']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already settled: select');

    const parent = step(['inspect', 'app']);
    expect(parent).toContain('forks: try-greedy (destroyed), try-exact (ready)');
    expect(parent).toMatch(new RegExp(`output ${exact} of try-exact into app: 2 change\\(s\\), settled by select`));
  });
});
