/**
 * inspect of a job that has not finished reports status `running` (the
 * inspection worked, so its exit code is 0), never `success`, which a reader
 * takes for the job's outcome (#12 item 22).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES, categoryOfStatus } from '../../../../src/core/status.js';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('inspect of a running job', () => {
  it('says running, with exit code 0', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'w' });
    const running = t.engine.run({ workspaceId: 'w', jobId: 'job-live', argv: ['block'] });
    await waitUntilRunning(t.engine, 'w');
    const pkg = await t.engine.inspect({ handle: 'job-live' });
    expect(pkg.status).toBe('running');
    expect(pkg.outcome_summary).toContain('is still running');
    expect(EXIT_CODES[categoryOfStatus(pkg.status)]).toBe(0);
    await t.engine.stop({ workspaceId: 'w', apply: true });
    expect((await running).status).toBe('cancelled');
    expect((await t.engine.inspect({ handle: 'job-live' })).status).toBe('cancelled');
  });
});
