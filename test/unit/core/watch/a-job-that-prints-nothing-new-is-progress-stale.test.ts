/**
 * With requireProgress, a running job that prints nothing new and changes no
 * workspace storage for progressTimeoutSeconds ends the watch with
 * progress_stale, at the first sample past the timeout (virtual clock).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('watch of a job that makes no progress', () => {
  it('ends with progress_stale once the timeout has passed', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const running = t.engine.run({ workspaceId: 'w', jobId: 'quiet', argv: ['echo', 'started', '&&', 'block'] });
    await waitUntilRunning(t.engine, 'w');
    const pkg = await t.engine.watch({ handle: 'quiet', forSeconds: 60, everySeconds: 1, requireProgress: true, progressTimeoutSeconds: 5 });
    expect(pkg.status).toBe('failure');
    const violation = pkg.key_findings.find((f) => typeof f !== 'string' && f.kind === 'violation');
    expect(violation).toMatchObject({ code: 'progress_stale' });
    const samples = pkg.key_findings.filter((f) => typeof f !== 'string' && f.kind === 'watch-sample');
    expect(samples.at(-1)).toMatchObject({ elapsed_seconds: 5, state: 'running', job_id: 'quiet' });
    expect(pkg.attention[0]?.action).toMatchObject({ verb: 'logs', args: { jobId: 'quiet' } });
    await t.engine.stop({ workspaceId: 'w', apply: true });
    await running;
  });
});
