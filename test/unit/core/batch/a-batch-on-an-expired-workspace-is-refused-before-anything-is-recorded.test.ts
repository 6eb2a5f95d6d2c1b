/**
 * A batch naming a workspace past its TTL, to run in or to fork, is refused
 * whole (exit 2, WORKSPACE_EXPIRED) before any group, fork or job is
 * recorded: it used to be recorded and launched, and only that job failed at
 * its start while the batch's other jobs ran.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../../src/api/index.js';
import { BatchRecords } from '../../../../src/core/batch/batch-records.js';
import { createVirtualClock } from '../../../../src/core/clock.js';
import type { Engine } from '../../../../src/core/engine.js';
import { exitCodeOf, type EngineError } from '../../../../src/core/errors.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

let home: string;
let engine: Engine | undefined;
afterEach(() => {
  engine?.close();
  rmSync(home, { recursive: true, force: true });
});

async function refusalOf(promise: Promise<unknown>): Promise<EngineError> {
  return promise.then(
    () => {
      throw new Error('the batch was accepted');
    },
    (error: EngineError) => error,
  );
}

describe('a batch on an expired workspace', () => {
  for (const shape of ['workspace', 'fork'] as const) {
    it(`is refused with exit 2 before anything is recorded when a job names it as its ${shape}`, async () => {
      // The registered fake (a batch's jobs are detached runs, which need one), on a virtual clock.
      home = mkdtempSync(join(tmpdir(), 'hs-batch-expired-'));
      const clock = createVirtualClock();
      engine = createHeadspace({ home, defaultProvider: 'fake', clock });
      await engine.create({ workspaceId: 'fresh' });
      await engine.create({ workspaceId: 'old', ttlSeconds: 60 });
      clock.advance(61_000);
      const expiredJob = shape === 'workspace' ? { workspace: 'old', command: ['true'] } : { fork: 'old', command: ['true'] };
      const error = await refusalOf(engine.batch({ strategy: 'allSettled', jobs: [{ workspace: 'fresh', command: ['true'] }, expiredJob] }));
      expect(error.code).toBe('WORKSPACE_EXPIRED');
      expect(exitCodeOf(error.category)).toBe(2);
      expect(error.message).toContain('workspace old expired at');
      expect(error.message).toContain('nothing was run');
      const store = SqliteStore.open(home);
      expect(new BatchRecords(store).recentGroups(10).total).toBe(0);
      expect(store.listJobs('fresh')).toEqual([]);
      expect(
        store
          .listWorkspaces()
          .map((w) => w.id)
          .sort(),
      ).toEqual(['fresh', 'old']);
      store.close();
    });
  }
});
