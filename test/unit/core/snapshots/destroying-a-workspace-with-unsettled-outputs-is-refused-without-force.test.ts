/**
 * Destroying the parent or the fork of a sealed, unsettled output would leave
 * it unsettleable. Like unexported artifacts, that is refused without force,
 * naming each output and removing nothing; with force the workspace goes and
 * each such output is released in the same commit, named in the result.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, write } from '../../../helpers/snapshots.js';

let t: TestEngine;
afterEach(() => t.cleanup());

function facts(home: string, outputId: string, workspaceId: string): { output: string | undefined; workspace: string | undefined } {
  const store = SqliteStore.open(home);
  try {
    const out = new SnapshotRecords(store).getOutput(outputId);
    return { output: out && `${out.state}${out.decision ? `:${out.decision}` : ''}`, workspace: store.getWorkspace(workspaceId)?.state };
  } finally {
    store.close();
  }
}

async function sealedFork(): Promise<string> {
  t = makeTestEngine();
  const { engine } = t;
  await engine.create({ workspaceId: 'p' });
  await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
  await write(engine, 'c', 'a.txt', 'work');
  return idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
}

describe('destroying a workspace with unsettled outputs', () => {
  for (const side of ['p', 'c']) {
    it(`is refused for the ${side === 'p' ? 'parent' : 'fork'} without force, naming the output and removing nothing`, async () => {
      const out = await sealedFork();
      const before = facts(t.home, out, side);
      const error = await refusal(t.engine.destroy({ workspaceId: side }));
      expect(exitCodeOf(error.category)).toBe(1);
      expect(error.message).toContain(`${out} (fork c of p)`);
      expect(error.message).toContain('nothing was removed');
      expect(error.hint).toContain('force');
      expect(error.action?.verb).toBe('settle');
      expect(facts(t.home, out, side)).toEqual(before);
      expect(before.output).toBe('sealed');
    });
  }

  it('with force destroys the parent and releases the output in the same commit, naming it', async () => {
    const out = await sealedFork();
    const result = await t.engine.destroy({ workspaceId: 'p', force: true });
    expect(result.key_findings.join('\n')).toContain(`released unsettled output ${out} (fork c of p)`);
    expect(facts(t.home, out, 'p')).toEqual({ output: 'settled:release', workspace: 'destroyed' });
    const again = await refusal(t.engine.settle({ outputId: out, decision: 'select' }));
    expect(again.code).toBe('ALREADY_SETTLED');
  });

  it('is not refused once the output is settled', async () => {
    const out = await sealedFork();
    await t.engine.settle({ outputId: out, decision: 'select' });
    await t.engine.destroy({ workspaceId: 'p' });
    await t.engine.destroy({ workspaceId: 'c' });
    expect(facts(t.home, out, 'p').workspace).toBe('destroyed');
  });
});
