/**
 * After a job's network was cut for probing the secret redactor, a run with
 * secrets is refused wherever that job's files may be: its workspace, a fork
 * of it, and a workspace a fork of it was settled back into (review, session
 * 12: a probing fork applied into its parent left the parent taking secrets).
 * The cut is written here through a second store connection, as the job's
 * end would record it; the refusal is exit 3, before anything runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../../src/core/errors.js';
import { NETWORK_CUT_REASON } from '../../../../src/core/network/egress-ledger.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { idAfter, refusal, write } from '../../../helpers/snapshots.js';

let t: TestEngine | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

function recordCut(home: string, workspaceId: string): void {
  const store = SqliteStore.open(home);
  try {
    const cut = {
      at: 1,
      verdict: 'denied' as const,
      host: 'echo.test',
      port: 443,
      via: 'http-connect' as const,
      reason: NETWORK_CUT_REASON,
      bytesUp: 0,
      bytesDown: 0,
    };
    store.recordNetworkDecisions('job-probing', workspaceId, [cut], 'network: 1 denied');
  } finally {
    store.close();
  }
}

const secretRun = (workspaceId: string) => ({
  workspaceId,
  argv: ['true'],
  secrets: [{ name: 'TOKEN', value: 'a-value-for-the-probe-refusal-test', host: 'api.test' }],
});

describe('a run with secrets after a probe', () => {
  it('is refused in a workspace a probing fork was settled back into, and in the fork', async () => {
    t = makeTestEngine();
    const { engine, home } = t;
    await engine.create({ workspaceId: 'p', network: ['allow=api.test'] });
    expect((await engine.run(secretRun('p'))).status).toBe('success');
    await engine.fork({ workspaceId: 'p', workspaceIds: ['c'] });
    await write(engine, 'c', 'guesses.txt', 'what the probe learnt');
    recordCut(home, 'c');
    const inFork = await refusal(engine.run(secretRun('c')));
    expect(inFork.code).toBe('POLICY_DENIED');
    expect(exitCodeOf(inFork.category)).toBe(3);
    expect(inFork.message).toContain('job job-probing in workspace c probed the secret redactor');
    expect((await engine.run(secretRun('p'))).status).toBe('success'); // not yet: p holds none of c's files
    const out = idAfter((await engine.seal({ workspaceId: 'c' })).key_findings, 'output');
    await engine.settle({ outputId: out, decision: 'select' });
    const inParent = await refusal(engine.run(secretRun('p')));
    expect(inParent.code).toBe('POLICY_DENIED');
    expect(inParent.message).toContain('workspace c, whose files p holds through a fork or a settle');
    expect((await engine.run({ workspaceId: 'p', argv: ['true'] })).status).toBe('success'); // without secrets: runs
  });
});
