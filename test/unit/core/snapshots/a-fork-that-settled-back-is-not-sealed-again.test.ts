/**
 * A fork settles back into its parent at most once. Sealed again after a
 * select or apply, its output held the settled changes again, against the
 * same baseline: select then found the parent moved (by that very select)
 * and apply found both sides changed the same paths, even with equal bytes,
 * so every hint led to an output that could never settle (a new user,
 * session 12). Now that seal is refused (exit 2, ALREADY_SETTLED), and both
 * it and a second settle of the output point at a fresh fork of the
 * parent. After a release the fork may be sealed again, as before.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, write } from '../../../helpers/snapshots.js';

let t: TestEngine | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

async function settledOnce(decision: 'select' | 'apply' | 'release') {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'p' });
  await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
  await write(engine, 'c', 'a.txt', 'one');
  const out = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
  await engine.settle({ outputId: out, decision });
  await write(engine, 'c', 'b.txt', 'two');
  return { engine, out };
}

describe('a fork that settled back into its parent', () => {
  for (const decision of ['select', 'apply'] as const)
    it(`is refused a second seal after ${decision}, pointing at a fresh fork of the parent`, async () => {
      const { engine, out } = await settledOnce(decision);
      const error = await refusal(engine.seal({ workspaceId: 'c' }));
      expect(error.code).toBe('ALREADY_SETTLED');
      expect(exitCodeOf(error.category)).toBe(2);
      expect(error.message).toContain(`output ${out}, ${decision}`);
      expect(error.message).toContain('nothing was sealed');
      expect(error.action).toEqual({ verb: 'fork', args: { workspaceId: 'p' } });
      const again = await refusal(engine.settle({ outputId: out, decision: 'select' }));
      expect(again.code).toBe('ALREADY_SETTLED');
      expect(again.action).toEqual({ verb: 'fork', args: { workspaceId: 'p' } });
    });

  it('may be sealed again after a release, and the second settle of the released output says so', async () => {
    const { engine, out } = await settledOnce('release');
    const second = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
    expect(second).not.toBe(out);
    const again = await refusal(engine.settle({ outputId: out, decision: 'select' }));
    expect(again.action).toEqual({ verb: 'seal', args: { workspaceId: 'c' } });
  });
});
