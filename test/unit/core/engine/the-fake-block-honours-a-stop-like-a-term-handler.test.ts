/**
 * On the fake provider, `block` behaves like a job with a TERM handler: a
 * stop reaches it as TERM, it prints that it was told to end, and that line
 * is kept in the job's output, the job reading cancelled. stop takes a grace
 * (graceSeconds) and refuses a grace that is not a number of seconds from 0
 * to 3600.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('stop on the fake', () => {
  it('lets block run its TERM handler and keeps what it printed', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'graceful' });
    const running = t.engine.run({ workspaceId: 'graceful', jobId: 'job-t', argv: ['block'] });
    await waitUntilRunning(t.engine, 'graceful');
    const stop = await t.engine.stop({ workspaceId: 'graceful', apply: true, graceSeconds: 1 });
    expect(stop.status).toBe('cancelled');
    const run = await running;
    expect(run.status).toBe('cancelled');
    const dump = await t.engine.logStream({ handle: 'job-t' });
    expect(await text(dump.jobs[0]!.open())).toContain('block: TERM received');
  });

  it('refuses a grace that is not 0 to 3600 seconds', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'graceful' });
    for (const graceSeconds of [-1, Number.NaN, 3601]) {
      await expect(t.engine.stop({ workspaceId: 'graceful', apply: true, graceSeconds })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
    }
  });
});

async function text(stream: NodeJS.ReadableStream): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}
