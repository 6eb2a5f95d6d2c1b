/**
 * Every way a job ends — success, failure, wall clock, memory, a stop, the
 * engine breaking — records exactly one terminal event, named for the
 * status, in the same transaction as the job's terminal record (finishJob
 * writes both). A second finishJob of the same job inserts no second event:
 * the event id is derived from the job and UNIQUE.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { eventIdOf } from '../../../../src/core/store/event-queue.js';
import { makeTestEngine, waitUntilRunning, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

describe('a job end', () => {
  it('records one event named for each terminal status', async () => {
    t = makeTestEngine();
    const { engine } = t;
    await engine.create({ workspaceId: 'w', budget: { wallClockSeconds: 5, memoryBytes: 64 * 1024 * 1024, concurrency: 2 } });
    const ran = async (argv: string[]) => (await engine.run({ workspaceId: 'w', argv })).provenance.job_id!;
    const jobs: Record<string, string> = {
      'job.succeeded': await ran(['echo', 'hi']),
      'job.failed': await ran(['fail', '3']),
      'job.timed_out': await ran(['sleep', '30']),
      'job.resource_exhausted': await ran(['alloc', String(128 * 1024 * 1024)]),
    };
    const blocked = engine.run({ workspaceId: 'w', argv: ['block'] });
    await waitUntilRunning(engine, 'w');
    await engine.stop({ workspaceId: 'w', apply: true, graceSeconds: 0 });
    jobs['job.cancelled'] = (await blocked).provenance.job_id!;

    const store = SqliteStore.open(t.home);
    try {
      for (const [name, jobId] of Object.entries(jobs)) {
        const events = store.events.eventsOfJob(jobId);
        expect(
          events.map((e) => e.name),
          jobId,
        ).toEqual([name]);
        const job = store.getJob(jobId)!;
        expect(events[0]).toMatchObject({ id: eventIdOf(jobId, job.startedAt), workspaceId: 'w', status: job.status, exitCode: job.exitCode });
        expect(events[0]!.finishedAt).toBe(job.finishedAt);
      }
      const seqs = Object.values(jobs).map((id) => store.events.eventsOfJob(id)[0]!.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    } finally {
      store.close();
    }
  });

  it('records no second event when the terminal record is written again', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const jobId = (await t.engine.run({ workspaceId: 'w', argv: ['echo', 'once'] })).provenance.job_id!;
    const store = SqliteStore.open(t.home);
    try {
      const finish = {
        status: 'failure' as const,
        exitCode: 9,
        signal: null,
        limitHit: null,
        finishedAt: Date.now(),
        outputBytes: 0,
        storedBytes: 0,
        usage: {},
      };
      const again = store.finishJob(jobId, finish);
      expect(again.status).toBe('success');
      // Even past the state check (a path that wrote the record itself), the UNIQUE id keeps it to one.
      store.events.recordTerminal({ ...again, status: 'failure', exitCode: 9 });
      expect(store.events.eventsOfJob(jobId).map((e) => e.name)).toEqual(['job.succeeded']);
    } finally {
      store.close();
    }
  });

  it('records infrastructure_failed, once, when doctor settles a job whose process is gone', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'w' });
    const store = SqliteStore.open(t.home);
    try {
      const deadOwner = { pid: 2 ** 22 - 3, started: '1' };
      store.beginJob({ id: 'job-lost', workspaceId: 'w', argv: ['block'], startedAt: 0, owner: deadOwner });
      await t.engine.doctor({ repair: true, apply: true });
      await t.engine.doctor({ repair: true, apply: true });
      expect(store.events.eventsOfJob('job-lost').map((e) => e.name)).toEqual(['job.infrastructure_failed']);
    } finally {
      store.close();
    }
  });
});
