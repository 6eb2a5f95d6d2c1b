/**
 * Foreground runs on fake and native emit exactly one event per job end,
 * and a `claim --wait` already waiting in another process wakes with it.
 * Success, failure and the wall clock each end a job; after all three the
 * subscription holds exactly three events, one per job, none twice.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliAsync, makeHome } from '../../helpers/cli.js';
import { nativeReadiness } from '../../unit/providers/native/native-readiness.js';

const readiness = await nativeReadiness();

interface Claimed {
  key_findings: Array<{ kind: string; id: string; job_id: string; name: string }>;
}

for (const provider of ['fake', 'native'] as const) {
  describe.runIf(provider === 'fake' || readiness.ready)(`foreground jobs on ${provider}`, () => {
    const { home, cleanup } = makeHome();
    const env = { HEADSPACE_PROVIDER: provider };
    afterAll(async () => {
      cli(home, ['destroy', 'w', '--force'], env);
      await cleanup();
    });

    it('each end in one event that a waiting claim receives', { timeout: 90_000 }, async () => {
      expect(cli(home, ['create', '--workspace-id', 'w', '--wall-clock-seconds', '1'], env).code).toBe(0);
      expect(cli(home, ['events', 'subscribe', '--workspace', 'w', '--name', 'fg'], env).code).toBe(0);
      const jobs: Array<{ argv: string[]; name: string; code: number }> = [
        { argv: ['true'], name: 'job.succeeded', code: 0 },
        { argv: ['false'], name: 'job.failed', code: 6 },
        { argv: ['sleep', '30'], name: 'job.timed_out', code: 4 },
      ];
      const seen: Claimed['key_findings'] = [];
      for (const job of jobs) {
        const waiting = cliAsync(home, ['events', 'claim', 'fg', '--wait', '60', '--json'], env);
        const ran = cli(home, ['run', 'w', ...job.argv], env);
        expect(ran.code, ran.stderr).toBe(job.code);
        const claimed = await waiting;
        expect(claimed.code, claimed.stderr).toBe(0);
        const events = (JSON.parse(claimed.stdout) as Claimed).key_findings.filter((f) => f.kind === 'event');
        expect(events.map((e) => e.name)).toEqual([job.name]);
        expect(cli(home, ['events', 'ack', 'fg', events[0]!.id], env).code).toBe(0);
        seen.push(...events);
      }
      expect(new Set(seen.map((e) => e.job_id)).size).toBe(3);
      const again = JSON.parse(cli(home, ['events', 'claim', 'fg', '--json'], env).stdout) as Claimed;
      expect(again.key_findings.filter((f) => f.kind === 'event')).toEqual([]);
      const all = JSON.parse(cli(home, ['events', 'follow', '--after-seq', '0', '--for', '0.3', '--json'], env).stdout.split('\n')[0]!) as { job_id: string };
      expect(all.job_id).toBe(seen[0]!.job_id);
    });
  });
}
