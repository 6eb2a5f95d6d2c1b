/**
 * An output whose parent was destroyed under it (a store written before seal
 * refused that) cannot be selected or applied: the refusal says so, consumes
 * nothing, and points at release (or discard), offering release as the next
 * action — which then works — instead of "create a new one".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('an output whose parent is gone', () => {
  it('is refused for select and apply, pointing at release, which then settles it', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'par' });
    await engine.fork({ workspaceId: 'par', workspaceIds: ['kid'] });
    await write(engine, 'kid', 'a.txt', 'work');
    const out = idAfter((await engine.seal({ workspaceId: 'kid' })).key_findings, 'output');
    // The state an older headspace could leave: the parent's record destroyed, the output still sealed.
    const store = SqliteStore.open(t.home);
    try {
      store.moveWorkspaceThrough('par', ['cancelled', 'destroyed'], Date.now());
    } finally {
      store.close();
    }
    for (const decision of ['select', 'apply'] as const) {
      const error = await refusal(engine.settle({ outputId: out, decision }));
      expect(error.code).toBe('WORKSPACE_DESTROYED');
      expect(error.message).toContain('nothing was consumed');
      expect(error.hint).toContain('release');
      expect(error.hint).toContain('discard');
      expect(error.action).toMatchObject({ verb: 'settle', args: { outputId: out, decision: 'release' } });
    }
    await expect(engine.settle({ outputId: out, decision: 'release' })).resolves.toMatchObject({ status: 'success' });
  });
});
