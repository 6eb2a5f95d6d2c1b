/**
 * A fork holds at most one unsettled output. Sealed again unchanged, seal
 * returns that output (idempotent); changed since, the second seal is
 * refused (exit 2) naming the first output and the call that lets it go.
 * Whatever sequence of writes, seals and settles happens, no output is left
 * unsettled beside another (an orphan nobody can reach from the fork).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, write } from '../../../helpers/snapshots.js';

let t: TestEngine | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

function unsettledOutputs(home: string, childId: string): string[] {
  const store = SqliteStore.open(home);
  try {
    return new SnapshotRecords(store)
      .outputsOf(childId)
      .filter((o) => o.childId === childId && o.state !== 'settled')
      .map((o) => o.id);
  } finally {
    store.close();
  }
}

/** A fork c of p with one change, sealed once: the engine and the first output. */
async function sealedOnce() {
  t = makeTestEngine();
  const { engine, home } = t;
  await engine.create({ workspaceId: 'p' });
  await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
  await write(engine, 'c', 'a.txt', 'one');
  return { engine, home, first: idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output') };
}

describe('sealing a fork twice', () => {
  it('returns the first output when the fork did not change since it was sealed', async () => {
    const { engine, home, first } = await sealedOnce();
    const again = await engine.seal({ workspaceId: 'c' });
    expect(idAfter(again.key_findings, 'output')).toBe(first);
    expect(again.key_findings.join('\n')).toContain('no new one was made');
    expect(unsettledOutputs(home, 'c')).toEqual([first]);
  });

  it('is refused, naming the first output and how to release it, when the fork changed since', async () => {
    const { engine, home, first } = await sealedOnce();
    await write(engine, 'c', 'b.txt', 'two');
    const error = await refusal(engine.seal({ workspaceId: 'c' }));
    expect(error.code).toBe('ALREADY_SEALED');
    expect(exitCodeOf(error.category)).toBe(2);
    expect(error.message).toContain(first);
    expect(error.message).toContain('nothing was sealed');
    expect(error.action).toEqual({ verb: 'settle', args: { outputId: first, decision: 'release' } });
    expect(unsettledOutputs(home, 'c')).toEqual([first]);

    await engine.settle({ outputId: first, decision: 'release' });
    const second = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
    expect(second).not.toBe(first);
    expect(unsettledOutputs(home, 'c')).toEqual([second]);
  });

  it('leaves at most one unsettled output whatever writes, seals and releases happen (seeded)', async () => {
    const step = fc.constantFrom('write', 'seal', 'release');
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        t?.cleanup();
        t = makeTestEngine();
        const { engine, home } = t;
        await engine.create({ workspaceId: 'p' });
        await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
        let n = 0;
        for (const s of steps) {
          if (s === 'write') await write(engine, 'c', `f${n++}.txt`, String(n));
          else if (s === 'seal') await engine.seal({ workspaceId: 'c' }).catch((e: { code?: string }) => expect(e.code).toBe('ALREADY_SEALED'));
          else for (const id of unsettledOutputs(home, 'c')) await engine.settle({ outputId: id, decision: 'release' });
          expect(unsettledOutputs(home, 'c').length).toBeLessThanOrEqual(1);
        }
      }),
      { seed: 1414, numRuns: 12 },
    );
  });
});
