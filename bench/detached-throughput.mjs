// Detached runs (#15): jobs per second of `run({detach:true})` + `wait` at
// concurrency 2 against foreground `run` through the same library, in the
// same process and workspace, on native (fake when native is not ready
// here); and the resident memory of the home's shared supervisor with one
// and with two jobs in flight (RSS, and USS: the pages only it holds).
// Aim: detached ≥ 0.8× foreground; supervisor ≤ 30 MiB per running job, or
// one shared supervisor.
// HEADSPACE_BENCH_DETACH_N sets the jobs per path (default 1,000).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize } from './lib/stats.mjs';

async function pathRate(n, concurrency, runOne) {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async () => {
    while (next < n) {
      next++;
      await runOne();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { jobs: n, seconds, perSecond: n / seconds };
}

/** VmRSS and USS (Private_Clean + Private_Dirty) of a process, in MiB. */
function memoryOf(pid) {
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(rollup)?.[1] ?? 0);
  return { rssMiB: rss, ussMiB: (kb('Private_Clean') + kb('Private_Dirty')) / 1024 };
}

export async function benchDetachedThroughput({ repo, jobs = Number(process.env.HEADSPACE_BENCH_DETACH_N ?? 1000) }) {
  const api = await import(join(repo, 'dist', 'api', 'index.js'));
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-detach-'));
  const engine = api.createHeadspace({ home });
  let provider = 'native';
  const created = await engine.create({ provider, profile: 'host', budget: { concurrency: 2 } }).catch(() => {
    provider = 'fake';
    return engine.create({ provider, budget: { concurrency: 2 } });
  });
  const workspaceId = created.provenance.workspace_id;
  // `true` is a fake command too.
  const argv = ['true'];
  const detachReturns = [];
  let supervisor = null;
  try {
    const foregroundOne = async () => {
      const r = await engine.run({ workspaceId, argv });
      if (r.status !== 'success') throw new Error(`foreground run: ${r.status} ${r.outcome_summary}`);
    };
    const detachedOne = async () => {
      const t0 = process.hrtime.bigint();
      const started = await engine.run({ workspaceId, argv, detach: true });
      detachReturns.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (started.status !== 'running') throw new Error(`detached run: ${started.status} ${started.outcome_summary}`);
      const done = await engine.wait({ jobIds: started.provenance.job_id });
      if (done.status !== 'success') throw new Error(`detached job: ${done.status} ${done.outcome_summary}`);
    };
    for (let i = 0; i < 5; i++) {
      await foregroundOne();
      await detachedOne();
    }
    // Halves interleaved (F D F D), so drift on a shared host hits both alike.
    const half = Math.max(1, Math.floor(jobs / 2));
    const parts = { foreground: [], detached: [] };
    for (let round = 0; round < 2; round++) {
      parts.foreground.push(await pathRate(half, 2, foregroundOne));
      parts.detached.push(await pathRate(half, 2, detachedOne));
    }
    const total = (list) => {
      const n = list.reduce((s, p) => s + p.jobs, 0);
      const seconds = list.reduce((s, p) => s + p.seconds, 0);
      return { jobs: n, seconds, perSecond: n / seconds };
    };
    const foreground = total(parts.foreground);
    const detached = total(parts.detached);

    // The home's shared supervisor, measured with one job in flight, then two.
    const supervisorPid = (r) => Number(/supervisor pid (\d+)/.exec(JSON.stringify(r.attention))?.[1]);
    const first = await engine.run({ workspaceId, argv: ['sleep', '3'], detach: true });
    await new Promise((r) => setTimeout(r, 800));
    const pid = supervisorPid(first);
    const oneJob = memoryOf(pid);
    const second = await engine.run({ workspaceId, argv: ['sleep', '2'], detach: true });
    await new Promise((r) => setTimeout(r, 800));
    const twoJobs = memoryOf(pid);
    const sameSupervisor = supervisorPid(second) === pid;
    await engine.wait({ jobIds: [first.provenance.job_id, second.provenance.job_id] });
    supervisor = pid;
    const ratio = detached.perSecond / foreground.perSecond;
    const returnMs = summarize(detachReturns);
    return {
      name: 'detached-throughput',
      result: { provider, foreground, detached, ratio, supervisor: { oneJob, twoJobs, sameSupervisor }, detachReturnMs: returnMs },
      markdown: [
        `Provider ${provider}, ${foreground.jobs} trivial jobs per path at concurrency 2, one process, halves interleaved.`,
        '',
        '| measure | value |',
        '| --- | --- |',
        `| foreground run, jobs/s | ${foreground.perSecond.toFixed(1)} |`,
        `| detached run + wait, jobs/s | ${detached.perSecond.toFixed(1)} |`,
        `| detached / foreground | ${ratio.toFixed(2)}× (aim ≥ 0.8×) |`,
        `| run({detach:true}) returns in, median / p90 | ${returnMs.median.toFixed(1)} / ${returnMs.p90.toFixed(1)} ms |`,
        `| shared supervisor RSS / USS, 1 job in flight | ${oneJob.rssMiB.toFixed(1)} / ${oneJob.ussMiB.toFixed(1)} MiB |`,
        `| shared supervisor RSS / USS, 2 jobs in flight | ${twoJobs.rssMiB.toFixed(1)} / ${twoJobs.ussMiB.toFixed(1)} MiB (${sameSupervisor ? 'one process for both' : 'NOT the same process'}) |`,
        `| RSS of one more job in flight | ${(twoJobs.rssMiB - oneJob.rssMiB).toFixed(1)} MiB (aim: ≤ 30 MiB per job, or one shared supervisor) |`,
      ].join('\n'),
    };
  } finally {
    await engine.destroy({ workspaceId, force: true }).catch(() => undefined);
    engine.close();
    // The home's shared supervisor would idle on for its idle time: the bench started it, the bench ends it.
    if (supervisor) {
      try {
        process.kill(supervisor, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    // The last supervisor may still be closing its store (removing the WAL) a moment after its job's record is written.
    rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { dirname, resolve } = await import('node:path');
  const { fileURLToPath } = await import('node:url');
  const out = await benchDetachedThroughput({ repo: resolve(dirname(fileURLToPath(import.meta.url)), '..') });
  console.log(out.markdown);
}
