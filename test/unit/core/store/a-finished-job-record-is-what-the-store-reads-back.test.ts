/**
 * finishJob hands back the terminal record it wrote, built from what it
 * wrote rather than read back (#20: one read less per job). Whatever the
 * finish (status, exit, signal, limit, usage, note, canceller), that record
 * must be exactly what the store reads for the job afterwards, fields and
 * field order alike: the job.finished event and the result are made from it.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore, type JobFinish } from '../../../../src/core/store/sqlite-store.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

let t: TestEngine | undefined;
afterEach(() => t?.cleanup());

const finishArb: fc.Arbitrary<JobFinish> = fc.record(
  {
    status: fc.constantFrom('success', 'failure', 'timeout', 'cancelled', 'resource_exhausted', 'policy_denied', 'infrastructure_failure', 'inconclusive'),
    exitCode: fc.option(fc.integer({ min: -1, max: 255 })),
    signal: fc.option(fc.constantFrom('SIGKILL', 'SIGTERM')),
    limitHit: fc.option(fc.constantFrom('wall_clock', 'memory')),
    finishedAt: fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
    outputBytes: fc.nat(),
    storedBytes: fc.nat(),
    usage: fc.record(
      { cpuSeconds: fc.double({ min: 0, max: 1e6, noNaN: true }), maxMemoryBytes: fc.nat(), memoryScope: fc.constantFrom('job', 'workspace') },
      { requiredKeys: [] },
    ),
    note: fc.string({ maxLength: 40 }),
    cancelledBy: fc.constantFrom('stop', 'the caller', 'the MCP client'),
  },
  { requiredKeys: ['status', 'exitCode', 'signal', 'limitHit', 'finishedAt', 'outputBytes', 'storedBytes', 'usage'] },
) as fc.Arbitrary<JobFinish>;

describe('a finished job record', () => {
  it('is what the store reads back for the job, for any finish', async () => {
    t = makeTestEngine();
    await t.engine.create({ workspaceId: 'ws-finish' });
    const store = SqliteStore.open(t.home);
    try {
      const owner = { pid: process.pid, started: null };
      let n = 0;
      fc.assert(
        fc.property(finishArb, fc.boolean(), (finish, withCwd) => {
          const id = `job-finish-${n++}`;
          store.beginJob({ id, workspaceId: 'ws-finish', argv: ['echo', 'hi'], ...(withCwd ? { cwd: 'sub' } : {}), startedAt: 1, owner });
          const returned = store.finishJob(id, finish);
          const read = store.getJob(id)!;
          expect(returned).toEqual(read);
          expect(Object.keys(returned)).toEqual(Object.keys(read));
          expect(JSON.stringify(returned)).toBe(JSON.stringify(read));
        }),
        { seed: 20, numRuns: 60 },
      );
    } finally {
      store.close();
    }
  });
});
