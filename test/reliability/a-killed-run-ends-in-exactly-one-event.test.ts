/**
 * kill -9 of a foreground run at any point loses no event and never makes
 * two: the CLI running a job is killed at a named crash point (journalled,
 * provider not yet called; provider returned, record not yet written) or
 * after a seeded delay. While the job's record says running, it has no
 * event; `doctor --repair --apply` settles it (cancelled or
 * infrastructure_failure) and its one terminal event appears then, once —
 * a second repair adds nothing — and a subscription made before the run
 * receives exactly one event per job. A kill that landed after the
 * terminal commit leaves the record and its event together.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/core/store/sqlite-store.js';
import { cli, makeHome } from '../helpers/cli.js';
import { eventsOf, subscriptionIdOf } from '../helpers/events.js';
import { engineWithProviders } from '../helpers/engine.js';
import { LONG, seedFromEnv, seeded, spawnCli } from './reliability-helpers.js';

const SEED = seedFromEnv('HEADSPACE_CRASH_SEED', 20_261_130);
const DELAYED = LONG ? 40 : 6;
const { home, cleanup } = makeHome();
afterAll(cleanup);

function eventCounts(): Map<string, { state: string; events: number }> {
  const store = SqliteStore.open(home);
  try {
    return new Map(store.listJobs('w').map((job) => [job.id, { state: job.state, events: store.events.eventsOfJob(job.id).length }]));
  } finally {
    store.close();
  }
}

describe('a run killed with SIGKILL', () => {
  it('ends every job in exactly one event once doctor has settled it', { timeout: 120_000 }, async () => {
    const engine = engineWithProviders(home, 'fake');
    try {
      expect(cli(home, ['create', '--workspace-id', 'w']).code).toBe(0);
      const sub = subscriptionIdOf(await engine.subscribeEvents({ workspaceId: 'w' }));
      const rng = seeded(SEED);
      const trials: Array<{ env?: Record<string, string>; killAfterMs?: number }> = [
        { env: { HEADSPACE_TEST_CRASH_AT: 'run:after-intent' } },
        { env: { HEADSPACE_TEST_CRASH_AT: 'run:after-provider-call' } },
        ...Array.from({ length: DELAYED }, () => ({ killAfterMs: Math.floor(rng() * 700) })),
      ];
      for (const [i, trial] of trials.entries()) {
        const label = `trial ${i} (seed ${SEED}): ${trial.env?.HEADSPACE_TEST_CRASH_AT ?? `kill after ${trial.killAfterMs} ms`}`;
        await spawnCli(home, ['run', '--job-id', `job-${i}`, 'w', 'sleep', '0.3'], trial);
        const before = eventCounts().get(`job-${i}`);
        // Either the record and its event were committed together, or neither was: never a running job with an event.
        if (before) expect(before.events, label).toBe(before.state === 'finished' ? 1 : 0);
        await engine.doctor({ repair: true, apply: true, provider: 'fake' });
        await engine.doctor({ repair: true, apply: true, provider: 'fake' });
        for (const [jobId, seen] of eventCounts()) expect([jobId, seen], label).toEqual([jobId, { state: 'finished', events: 1 }]);
      }
      const delivered = eventsOf(await engine.claimEvents({ subscriptionId: sub, max: 1000 }));
      const jobs = [...eventCounts().keys()];
      expect(delivered.map((e) => e.job_id).sort()).toEqual(jobs.sort());
    } finally {
      engine.close();
    }
  });
});
