/**
 * A cancelled job's record, and every result about it, say who cancelled it:
 * stop, or the caller whose signal aborted the run (named by the run's
 * `canceller`, e.g. the MCP client). Before, every cancel read "cancelled by
 * stop", even a client's cancellation (#12 item 22).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('a cancelled job', () => {
  it('says it was cancelled by stop when stop ended it', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'w' });
    const running = t.engine.run({
      workspaceId: 'w',
      jobId: 'job-stopped',
      argv: ['block'],
      signal: new AbortController().signal,
      canceller: 'the MCP client',
    });
    await waitUntilRunning(t.engine, 'w');
    await t.engine.stop({ workspaceId: 'w', apply: true });
    expect((await running).outcome_summary).toMatch(/was cancelled by stop$/);
    expect((await t.engine.inspect({ handle: 'job-stopped' })).outcome_summary).toMatch(/was cancelled by stop$/);
  });

  it('names the canceller its run gave when the caller aborted it', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'w' });
    const abort = new AbortController();
    const running = t.engine.run({ workspaceId: 'w', jobId: 'job-client', argv: ['block'], signal: abort.signal, canceller: 'the MCP client' });
    await waitUntilRunning(t.engine, 'w');
    abort.abort();
    const pkg = await running;
    expect(pkg.status).toBe('cancelled');
    expect(pkg.outcome_summary).toMatch(/was cancelled by the MCP client$/);
    expect((await t.engine.inspect({ handle: 'job-client' })).outcome_summary).toMatch(/was cancelled by the MCP client$/);
  });

  it('says "the caller" when the run named no canceller', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'w' });
    const abort = new AbortController();
    const running = t.engine.run({ workspaceId: 'w', argv: ['block'], signal: abort.signal });
    await waitUntilRunning(t.engine, 'w');
    abort.abort();
    expect((await running).outcome_summary).toMatch(/was cancelled by the caller$/);
  });
});
