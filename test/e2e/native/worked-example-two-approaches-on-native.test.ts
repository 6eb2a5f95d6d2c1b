/**
 * The README's "try two approaches, keep the better one" flow on native
 * (#14 Done when): fork ×2 from a real workspace, change an inherited file
 * and add one in each fork with real commands, diff, seal, settle select the
 * better one into the parent and discard the other. The fake runs the same
 * flow word for word (worked-example-two-approaches-on-fake.test.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

describe.runIf(readiness.ready && process.getuid?.() === 0)(`try two approaches on native (needs a ready native host as root: ${readiness.reason})`, () => {
  const { home, cleanup } = makeHome();
  const env = { HEADSPACE_PROVIDER: 'native' };
  afterAll(async () => {
    for (const ws of ['try-exact', 'try-greedy', 'app']) cli(home, ['destroy', ws, '--force'], env);
    await cleanup();
  });
  const step = (args: string[]) => {
    const out = cli(home, args, env);
    expect(out.code, `${args.join(' ')}: ${out.stderr}`).toBe(0);
    return out.stdout;
  };
  const outputOf = (stdout: string) => /output: (out-\S+)/.exec(stdout)![1]!;

  it('forks twice, diffs, seals, selects the better one into the parent and discards the other', () => {
    step(['create', '--workspace-id', 'app', '--profile', 'host', '--purpose', 'pick the better solver']);
    step(['run', 'app', 'sh', '-c', 'echo "approach: none yet" > solver.txt']);
    expect(step(['fork', 'app', '--count', '2', '--workspace-id', 'try-greedy', '--workspace-id', 'try-exact'])).toContain(
      'workspace app forked into try-greedy, try-exact',
    );
    step(['run', 'try-greedy', 'sh', '-c', 'echo "approach: greedy, score 71" > solver.txt']);
    step(['run', 'try-exact', 'sh', '-c', 'echo "approach: exact, score 98" > solver.txt && mkdir -p notes && echo "branch and bound" > notes/exact.md']);

    const diff = step(['diff', 'try-exact', '--patch']);
    // Native lists the new directory too (the fake keeps no directories): notes/ and notes/exact.md.
    expect(diff).toContain('2 created, 1 modified, 0 deleted');
    expect(diff).toContain('+approach: exact, score 98');

    const exact = outputOf(step(['seal', 'try-exact']));
    const greedy = outputOf(step(['seal', 'try-greedy']));
    expect(step(['settle', exact, 'select'])).toContain(`output ${exact} is settled by select`);
    expect(step(['run', 'app', 'cat', 'solver.txt', 'notes/exact.md'])).toMatch(/approach: exact, score 98[\s\S]*branch and bound/);
    expect(step(['settle', greedy, 'discard'])).toContain('try-greedy destroyed');
    expect(cli(home, ['settle', exact, 'select'], env).code).toBe(2);
  });
});
