/**
 * A seal of a fork whose output is unsettled and unchanged answers with that
 * output ("sealed before"). Raced by a settle of the same output in another
 * process (red team, session 11), it read the output as sealed, compared the
 * fork against it, and answered with it although the settle had decided it
 * meanwhile: a discard's output, going with its fork, was named as the one
 * to settle. Now the seal reads the output again after its comparison and,
 * decided meanwhile, is refused as busy (exit 2), naming the decision and
 * sealing nothing. The other process's decision is made here, through a
 * second connection to the store, while the seal compares.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createVirtualClock } from '../../../../src/core/clock.js';
import { createEngine, type Engine } from '../../../../src/core/engine.js';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { sequentialIds } from '../../../../src/core/ids.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { createFakeProvider } from '../../../../src/providers/fake/fake-provider.js';
import { idAfter, refusal, write } from '../../../helpers/snapshots.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A fake engine whose snapshot comparisons first run `duringCompare` (when set): the moment another process acts. */
function engineWithCompareHook(): { engine: Engine; home: string; hook: { duringCompare?: () => void } } {
  const home = mkdtempSync(join(tmpdir(), 'hs-seal-race-'));
  const hook: { duringCompare?: () => void } = {};
  const engine = createEngine({
    home,
    version: '0.0.0-test',
    defaultProvider: 'fake',
    clock: createVirtualClock(),
    ids: sequentialIds(),
    providers: {
      fake: ({ clock }) => {
        const provider = createFakeProvider({ clock, persistPath: join(home, 'fake', 'state.json') });
        const snapshots = provider.snapshots!;
        return {
          ...provider,
          snapshots: {
            ...snapshots,
            changes: (workspaceId, checkpointId, limit) => {
              const act = hook.duringCompare;
              hook.duringCompare = undefined;
              act?.();
              return snapshots.changes(workspaceId, checkpointId, limit);
            },
          },
        };
      },
    },
  });
  cleanups.push(() => {
    engine.close();
    rmSync(home, { recursive: true, force: true });
  });
  return { engine, home, hook };
}

/** Another process's settle deciding the output: its one deciding transition, through its own connection. */
function decideElsewhere(home: string, outputId: string, decision: 'discard' | 'release'): void {
  const store = SqliteStore.open(home);
  try {
    expect(new SnapshotRecords(store).beginSettle(outputId, decision)).toBe(true);
  } finally {
    store.close();
  }
}

describe('a seal racing a settle of the same output', () => {
  for (const decision of ['discard', 'release'] as const) {
    it(`is refused busy, naming the ${decision}, when the output was decided while the seal compared`, async () => {
      const { engine, home, hook } = engineWithCompareHook();
      await engine.create({ workspaceId: 'p' });
      await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
      await write(engine, 'c', 'a.txt', 'one');
      const first = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');

      hook.duringCompare = () => decideElsewhere(home, first, decision);
      const error = await refusal(engine.seal({ workspaceId: 'c' }));
      expect(error.code, error.message).toBe('WORKSPACE_BUSY');
      expect(exitCodeOf(error.category)).toBe(2);
      expect(error.message).toContain(`output ${first}`);
      expect(error.message).toContain(`(${decision})`);
      expect(error.message).toContain('nothing was sealed');
      if (decision === 'discard') expect(error.action).toBeUndefined();
      else expect(error.action).toEqual({ verb: 'seal', args: { workspaceId: 'c' } });
    });
  }

  it('still answers with the unchanged output when nothing decided it meanwhile', async () => {
    const { engine } = engineWithCompareHook();
    await engine.create({ workspaceId: 'p' });
    await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    await write(engine, 'c', 'a.txt', 'one');
    const first = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
    const again = await engine.seal({ workspaceId: 'c' });
    expect(idAfter(again.key_findings, 'output')).toBe(first);
    expect(again.outcome_summary).toContain('sealed before');
  });
});
