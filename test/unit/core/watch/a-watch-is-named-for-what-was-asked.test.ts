/**
 * A watch's outcome names what the caller watched: a workspace as the
 * workspace, with the job it followed; a job as the job. A new user who
 * watched workspace cc read "watch of job c2 ended …" and took it for the
 * wrong handle.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('a watch', () => {
  it('of a workspace names the workspace and its job; of a job, the job', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const running = t.engine.run({ workspaceId: 'w', jobId: 'quiet', argv: ['echo', 'started', '&&', 'block'] });
    await waitUntilRunning(t.engine, 'w');
    const ofWorkspace = await t.engine.watch({ handle: 'w', forSeconds: 60, everySeconds: 1, requireProgress: true, progressTimeoutSeconds: 2 });
    expect(ofWorkspace.outcome_summary).toMatch(/^watch of workspace w \(job quiet\) ended at the first violation, progress_stale/);
    const ofJob = await t.engine.watch({ handle: 'quiet', forSeconds: 60, everySeconds: 1, requireProgress: true, progressTimeoutSeconds: 2 });
    expect(ofJob.outcome_summary).toMatch(/^watch of job quiet ended at the first violation, progress_stale/);
    await t.engine.stop({ workspaceId: 'w', apply: true });
    await running;
  });
});
