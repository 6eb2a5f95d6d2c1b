/**
 * Settling an output a second time is refused (ALREADY_SETTLED). The hint
 * says to seal the child again, so the next action offered is that seal of
 * the child, not an inspect; once the child is destroyed (discard) no new
 * output can be sealed, and the refusal offers no call that would fail.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

async function sealedFork(): Promise<string> {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'par' });
  await engine.fork({ workspaceId: 'par', workspaceIds: ['kid'] });
  await write(engine, 'kid', 'a.txt', 'work');
  return idAfter((await engine.seal({ workspaceId: 'kid' })).key_findings, 'output');
}

describe("a settled output's refusal", () => {
  it('offers sealing the child again, as its hint says, after a release', async () => {
    const out = await sealedFork();
    await t.engine.settle({ outputId: out, decision: 'release' });
    const error = await refusal(t.engine.settle({ outputId: out, decision: 'select' }));
    expect(error.code).toBe('ALREADY_SETTLED');
    expect(error.hint).toContain('seal the child (kid) again');
    expect(error.action).toMatchObject({ verb: 'seal', args: { workspaceId: 'kid' } });
    // The offered call works.
    await write(t.engine, 'kid', 'b.txt', 'more');
    await expect(t.engine.seal({ workspaceId: 'kid' })).resolves.toMatchObject({ status: 'success' });
  });

  it('offers no seal once the child is destroyed by discard', async () => {
    const out = await sealedFork();
    await t.engine.settle({ outputId: out, decision: 'discard' });
    const error = await refusal(t.engine.settle({ outputId: out, decision: 'apply' }));
    expect(error.code).toBe('ALREADY_SETTLED');
    expect(error.hint).not.toContain('seal the child');
    expect(error.action?.verb).not.toBe('seal');
  });
});
