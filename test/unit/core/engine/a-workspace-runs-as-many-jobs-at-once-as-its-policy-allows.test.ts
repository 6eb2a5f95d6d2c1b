/**
 * A policy may allow several jobs at once (#12 item 8): with --concurrency 2
 * two jobs run together in one workspace, each with its own record, stop and
 * result; a third is refused busy (environment_error, exit 2) naming the
 * running jobs; stopping one by its id leaves the other running to its own
 * end; the workspace reads running while any job runs and ready after the last.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { waitForJobStatus as waitForStatus } from '../../../helpers/wait-for-job.js';

let t: TestEngine;
afterEach(() => t.cleanup());

describe('a workspace whose policy allows two jobs at once', () => {
  it('runs two jobs together, refuses a third naming both, and stops one without ending the other', async () => {
    t = makeTestEngine({ realClock: true });
    const created = await t.engine.create({ workspaceId: 'pair', budget: { concurrency: 2 } });
    expect(created.provenance.policy_summary.find((l) => l.name === 'concurrency')?.value).toContain('2 jobs at once, sharing');

    const first = t.engine.run({ workspaceId: 'pair', jobId: 'job-a', argv: ['block'] });
    const second = t.engine.run({ workspaceId: 'pair', jobId: 'job-b', argv: ['block'] });
    await waitForStatus(t.engine, 'job-a', 'running');
    await waitForStatus(t.engine, 'job-b', 'running');

    const third = await t.engine.run({ workspaceId: 'pair', jobId: 'job-c', argv: ['echo', 'third'] }).then(
      () => null,
      (e: unknown) => e as { code: string; category: string; message: string },
    );
    expect(third).toMatchObject({ code: 'WORKSPACE_BUSY', category: 'environment_error' });
    expect(third!.message).toContain('job-a');
    expect(third!.message).toContain('job-b');

    const stopA = await t.engine.stop({ workspaceId: 'pair', jobId: 'job-a', apply: true, graceSeconds: 0 });
    expect(stopA.status).toBe('cancelled');
    expect(stopA.provenance.job_id).toBe('job-a');
    const resultA = await first;
    expect(resultA.status).toBe('cancelled');
    expect(resultA.provenance.job_id).toBe('job-a');

    // The other job is untouched: still running, the workspace still taken, and a new job fits in the freed slot.
    await new Promise((r) => setTimeout(r, 200));
    expect((await t.engine.inspect({ handle: 'job-b' })).status).toBe('running');
    const ws = await t.engine.inspect({ handle: 'pair' });
    expect(ws.key_findings.join('\n')).toContain('running');
    const fits = await t.engine.run({ workspaceId: 'pair', jobId: 'job-d', argv: ['echo', 'fits'] });
    expect(fits.status).toBe('success');

    const stopB = await t.engine.stop({ workspaceId: 'pair', jobId: 'job-b', apply: true, graceSeconds: 0 });
    expect(stopB.status).toBe('cancelled');
    const resultB = await second;
    expect(resultB.status).toBe('cancelled');
    expect(resultB.provenance.job_id).toBe('job-b');
    expect((await t.engine.inspect({ handle: 'job-d' })).status).toBe('success');
    expect((await t.engine.stop({ workspaceId: 'pair' })).outcome_summary).toContain('nothing is running');
  });

  it('stops every running job when no job is named', async () => {
    t = makeTestEngine({ realClock: true });
    await t.engine.create({ workspaceId: 'pair', budget: { concurrency: 2 } });
    const runs = [
      t.engine.run({ workspaceId: 'pair', jobId: 'job-a', argv: ['block'] }),
      t.engine.run({ workspaceId: 'pair', jobId: 'job-b', argv: ['block'] }),
    ];
    await waitForStatus(t.engine, 'job-a', 'running');
    await waitForStatus(t.engine, 'job-b', 'running');
    const preview = await t.engine.stop({ workspaceId: 'pair' });
    expect(preview.outcome_summary).toBe('jobs job-a, job-b are running in workspace pair; this preview changed nothing');
    const stopped = await t.engine.stop({ workspaceId: 'pair', apply: true, graceSeconds: 0 });
    expect(stopped.status).toBe('cancelled');
    expect(stopped.outcome_summary).toContain('jobs job-a, job-b');
    expect((await Promise.all(runs)).map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
  });
});
