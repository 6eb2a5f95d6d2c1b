/**
 * stop previews by default and changes nothing; with apply it ends the job,
 * and both the stop's own result and the job's record read cancelled.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('stop', () => {
  it('previews a running job without changing anything', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'stoppable' });
    const running = t.engine.run({ workspaceId: 'stoppable', jobId: 'job-a', argv: ['block'] });
    await waitUntilRunning(t.engine, 'stoppable');
    const store = SqliteStore.open(t.home);
    const before = { job: store.getJob('job-a'), intents: store.countIntents() };
    const preview = await t.engine.stop({ workspaceId: 'stoppable' });
    expect(preview.status).toBe('success');
    expect(preview.outcome_summary).toContain('changed nothing');
    expect({ job: store.getJob('job-a'), intents: store.countIntents() }).toEqual(before);
    await t.engine.stop({ workspaceId: 'stoppable', apply: true });
    await running;
    store.close();
  });

  it('ends the job with both results reading cancelled', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'stoppable' });
    const running = t.engine.run({ workspaceId: 'stoppable', jobId: 'job-b', argv: ['block'] });
    await waitUntilRunning(t.engine, 'stoppable');
    const stop = await t.engine.stop({ workspaceId: 'stoppable', apply: true });
    const run = await running;
    expect(stop.status).toBe('cancelled');
    expect(run.status).toBe('cancelled');
    expect(run.provenance.exit_code).toBeNull();
    const job = await t.engine.inspect({ handle: 'job-b' });
    expect(job.status).toBe('cancelled');
    expect((await t.engine.inspect({ handle: 'stoppable' })).key_findings).toContain('lifecycle state: ready');
  });

  it('reports nothing to stop on an idle workspace with exit 0', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'idle' });
    const pkg = await t.engine.stop({ workspaceId: 'idle', apply: true });
    expect(pkg.status).toBe('success');
    expect(pkg.outcome_summary).toContain('nothing to stop');
  });
});
