/**
 * One writer per workspace: while a job runs, another run or a destroy is
 * refused at once with environment_error (exit 2), naming the running job's
 * id — never its command line — and pointing at stop.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('a busy workspace', () => {
  it('refuses a second run and a destroy, naming the job and not its argv', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'busy' });
    const first = t.engine.run({ workspaceId: 'busy', jobId: 'job-long', argv: ['block', 'secret-looking-arg'] });
    await waitUntilRunning(t.engine, 'busy');
    for (const attempt of [() => t.engine.run({ workspaceId: 'busy', argv: ['echo', 'again'] }), () => t.engine.destroy({ workspaceId: 'busy' })]) {
      const error = await attempt().then(
        () => null,
        (e: unknown) => e as { code: string; category: string; message: string; hint: string; action: unknown },
      );
      expect(error).toMatchObject({ code: 'WORKSPACE_BUSY', category: 'environment_error' });
      expect(error!.message).toContain('job-long');
      expect(error!.message).not.toContain('secret-looking-arg');
      expect(error!.hint).toBe('wait for it, or end it');
      expect(error!.action).toEqual({ verb: 'stop', args: { workspaceId: 'busy', apply: true } });
    }
    const stopped = await t.engine.stop({ workspaceId: 'busy', apply: true });
    expect(stopped.status).toBe('cancelled');
    expect((await first).status).toBe('cancelled');
  });
});
