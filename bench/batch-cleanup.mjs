// Batches (#16): a 100-job `race` and a 100-job `quorum` (K = 2) at
// concurrency 2, on native (fake when native is not ready here), through the
// library. Measured: the time from the deciding job's recorded end to every
// loser gone — the running loser stopped through the engine's stop path
// (its processes killed, its record cancelled) and the queued ones marked
// never started — as the batch reports it (cleanup: every loser gone N ms
// after the deciding job ended), plus a look at /proc that no loser process
// is left. Aim: ≤ 200 ms p50.
// HEADSPACE_BENCH_BATCH_REPS sets the batches per strategy (default 7).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize } from './lib/stats.mjs';

const LOSER = ['sleep', '31.3'];

function loserProcesses() {
  const wanted = `${LOSER.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === wanted;
      } catch {
        return false;
      }
    }).length;
}

function sharedSupervisors(home) {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv.includes('--shared') && argv.includes(home);
      } catch {
        return false;
      }
    })
    .map(Number);
}

function goneMs(result) {
  // A finding is a string or, when it carries fields (the batch's are structured, #16), an object with its text.
  const line = result.key_findings.map((f) => (typeof f === 'string' ? f : f?.text)).find((t) => typeof t === 'string' && t.startsWith('cleanup:'));
  const ms = Number(/every loser gone (\d+) ms/.exec(line ?? '')?.[1]);
  if (!Number.isFinite(ms)) throw new Error(`no cleanup time in the batch result: ${line ?? result.outcome_summary}`);
  return ms;
}

export async function benchBatchCleanup({ repo, reps = Number(process.env.HEADSPACE_BENCH_BATCH_REPS ?? 7) }) {
  const api = await import(join(repo, 'dist', 'api', 'index.js'));
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-batch-'));
  const engine = api.createHeadspace({ home });
  let provider = 'native';
  const created = await engine.create({ provider, budget: { concurrency: 2 } }).catch(() => {
    provider = 'fake';
    return engine.create({ provider, budget: { concurrency: 2 } });
  });
  const workspace = created.provenance.workspace_id;
  const job = (command) => ({ workspace, command });
  const plans = {
    // The first job wins; job 2 is running when it ends, 98 are queued.
    race: () => ({ strategy: 'race', jobs: [job(['sleep', '0.3']), ...Array.from({ length: 99 }, () => job(LOSER))] }),
    // Jobs 1 and 3 succeed (3 starts in 1's freed slot); job 2 runs on, 97 are queued.
    quorum: () => ({
      strategy: 'quorum',
      quorum: 2,
      jobs: [job(['sleep', '0.2']), job(LOSER), job(['sleep', '0.2']), ...Array.from({ length: 97 }, () => job(LOSER))],
    }),
  };
  const samples = { race: [], quorum: [] };
  let leftOver = 0;
  try {
    for (let i = 0; i < reps + 1; i++) {
      for (const [name, plan] of Object.entries(plans)) {
        const result = await engine.batch({ ...plan(), concurrency: 2 });
        if (result.status !== 'success') throw new Error(`${name}: ${result.status} ${result.outcome_summary}`);
        const ms = goneMs(result);
        leftOver += loserProcesses();
        // The first round warms the shared supervisor and the standby launchers.
        if (i > 0) samples[name].push(ms);
      }
    }
    const race = summarize(samples.race);
    const quorum = summarize(samples.quorum);
    return {
      name: 'batch-cleanup',
      result: {
        provider,
        jobsPerBatch: 100,
        concurrency: 2,
        race,
        quorum,
        raceSamples: samples.race,
        quorumSamples: samples.quorum,
        loserProcessesLeft: leftOver,
      },
      markdown: [
        `Provider ${provider}, 100 jobs per batch at concurrency 2, ${reps} batches per strategy after one warm-up; the deciding job's recorded end → every loser gone (the running one stopped, the queued ones never started), as the batch reports it.`,
        '',
        '| strategy | p50 | p90 | aim |',
        '| --- | --- | --- | --- |',
        `| race (first to end) | ${race.median} ms | ${race.p90} ms | ≤ 200 ms p50 |`,
        `| quorum, K = 2 | ${quorum.median} ms | ${quorum.p90} ms | ≤ 200 ms p50 |`,
        '',
        `Loser processes left on the host after the batches: ${leftOver}.`,
      ].join('\n'),
    };
  } finally {
    await engine.destroy({ workspaceId: workspace, force: true }).catch(() => undefined);
    engine.close();
    // The home's shared supervisor would idle on for its idle time: the bench started it, the bench ends it.
    for (const pid of sharedSupervisors(home)) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  }
}
