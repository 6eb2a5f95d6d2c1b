/**
 * A verb checks that its workspace is live, then takes it in a transaction;
 * another process may destroy it in between. The concurrency soak caught a
 * run reading ILLEGAL_TRANSITION (destroyed -> running) there: inside the
 * transaction the race must read as what it is, WORKSPACE_DESTROYED, for a
 * job and for any lifecycle move.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('a workspace destroyed by another process meanwhile', () => {
  it('refuses a job and a lifecycle move as destroyed', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'gone' });
    await t.engine.destroy({ workspaceId: 'gone' });
    // The state a racing verb meets after its own liveness check passed.
    const store = SqliteStore.open(t.home);
    try {
      const owner = { pid: process.pid, started: 0 };
      expect(() => store.beginJob({ id: 'job-late', workspaceId: 'gone', argv: ['true'], startedAt: Date.now(), owner })).toThrow(
        expect.objectContaining({ code: 'WORKSPACE_DESTROYED' }),
      );
      expect(() => store.moveWorkspace('gone', 'cancelled', Date.now())).toThrow(expect.objectContaining({ code: 'WORKSPACE_DESTROYED' }));
    } finally {
      store.close();
    }
  });
});
