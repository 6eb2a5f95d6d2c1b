/**
 * A waiter answers only from a store still at its home. A job can end
 * because its home was moved away (the fake's state went with it, a
 * supervisor gave up), and its record, written to the moved file through a
 * connection opened before, is one nobody else will read. `wait` answered
 * with that record whenever the job's end reached it before its own look
 * noticed the move (an exit 7 where the move's exit 2 was due: once in ~40
 * runs of the moved-home e2e file). It now looks once more before it
 * answers, however the wait ended.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../../../src/core/errors.js';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine | null = null;
afterEach(() => {
  if (t !== null && existsSync(`${t.home}-moved`)) {
    rmSync(t.home, { recursive: true, force: true });
    renameSync(`${t.home}-moved`, t.home);
  }
  t?.cleanup();
  t = null;
});

describe('a wait whose home was moved', () => {
  it('says the store moved (STORE_UNAVAILABLE) instead of answering with a record written after the move', async () => {
    t = makeTestEngine({ realClock: true });
    const { engine, home } = t;
    await engine.create({ workspaceId: 'w' });
    const running = engine.run({ workspaceId: 'w', argv: ['sleep', '1'] });
    await waitUntilRunning(engine, 'w');
    const job = /^job (\S+) is running/.exec((await engine.stop({ workspaceId: 'w' })).outcome_summary)![1]!;
    renameSync(home, `${home}-moved`);
    // The job ends after the move, and its end is recorded through the connection opened before it: in the moved file.
    await running.catch(() => undefined);
    const waited = engine.wait({ jobIds: [job] });
    await expect(waited).rejects.toBeInstanceOf(EngineError);
    await expect(waited).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    await expect(waited).rejects.toThrow(`the state store this process opened is no longer at ${home}/state.db`);
  });

  it('answers as ever when the home is where it was', async () => {
    t = makeTestEngine({ realClock: true });
    const { engine } = t;
    await engine.create({ workspaceId: 'w' });
    const ran = await engine.run({ workspaceId: 'w', argv: ['echo', 'hi'] });
    const result = await engine.wait({ jobIds: [ran.provenance.job_id!] });
    expect(result.status).toBe('success');
  });
});
