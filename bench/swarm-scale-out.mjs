// The swarm provider against the single docker provider, same run (#22):
// per-job latency (`/bin/true`, interleaved rounds, one workspace each), the
// cost of making a workspace (a Swarm service placed and started, against a
// container), and fan-out (W workspaces, each running J jobs, all workspaces
// at once). The swarm is the three-node test swarm of scripts/setup-swarm.sh
// (started here and torn down by pid unless HEADSPACE_SWARM_HOST is set);
// the docker provider runs on its own engine (scripts/setup-docker.sh). All
// nodes share this machine's 2 cores, so the fan-out ratio measures the
// provider's overhead, never real scale-out capacity.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleave, ms, summarize, table } from './lib/stats.mjs';
import { loadAverage } from './lib/peers.mjs';
import { startDockerEngine } from './lib/docker-engine.mjs';

function startSwarm(repo) {
  if (process.env.HEADSPACE_SWARM_HOST) return { host: process.env.HEADSPACE_SWARM_HOST };
  const out = execFileSync('bash', [join(repo, 'scripts', 'setup-swarm.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, CI: '' },
  });
  const vars = Object.fromEntries([...out.matchAll(/^export (\w+)=(.*)$/gm)].map((m) => [m[1], m[2].replace(/^'(.*)'$/, '$1')]));
  if (vars.HEADSPACE_SWARM_SKIP) return { skipped: vars.HEADSPACE_SWARM_SKIP };
  return { host: vars.HEADSPACE_SWARM_HOST, state: vars.HEADSPACE_SWARM_STATE };
}

async function library(repo, provider) {
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const home = mkdtempSync(join(tmpdir(), `hs-bench-${provider}-`));
  const engine = api.createHeadspace({ home, defaultProvider: provider });
  const workspaces = [];
  return {
    async create() {
      const t0 = process.hrtime.bigint();
      const created = await engine.create({ purpose: `${provider} scale-out bench` });
      if (created.status !== 'success') throw new Error(`create (${provider}): ${created.status}: ${created.outcome_summary}`);
      workspaces.push(created.provenance.workspace_id);
      return Number(process.hrtime.bigint() - t0) / 1e6;
    },
    async run(w, argv) {
      const r = await engine.run({ workspaceId: workspaces[w], argv });
      if (r.status !== 'success') throw new Error(`engine.run (${provider}): ${r.status}: ${r.outcome_summary}`);
    },
    async close() {
      for (const id of workspaces) await engine.destroy({ workspaceId: id, force: true }).catch(() => undefined);
      engine.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

async function fanOut(lib, workspaces, jobs) {
  const t0 = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: workspaces }, async (_, w) => {
      for (let j = 0; j < jobs; j++) await lib.run(w, ['/bin/true']);
    }),
  );
  return (workspaces * jobs) / (Number(process.hrtime.bigint() - t0) / 1e9);
}

export async function benchSwarmScaleOut({
  repo,
  rounds = Number(process.env.HS_BENCH_ROUNDS ?? 20),
  warmup = 3,
  workspaces = Number(process.env.HS_BENCH_SWARM_WORKSPACES ?? 4),
  jobs = Number(process.env.HS_BENCH_SWARM_JOBS ?? 10),
}) {
  const docker = await startDockerEngine(repo);
  if (docker.skipped) return { name: 'swarm-scale-out', result: { skipped: docker.skipped }, markdown: `skipped: ${docker.skipped}` };
  const swarm = startSwarm(repo);
  if (swarm.skipped) return { name: 'swarm-scale-out', result: { skipped: swarm.skipped }, markdown: `skipped: ${swarm.skipped}` };
  process.env.HEADSPACE_SWARM_HOST = swarm.host;
  const load = { before: loadAverage() };
  const libs = { docker: await library(repo, 'docker'), swarm: await library(repo, 'swarm') };
  try {
    // Workspaces made alternately, so drift hits both alike.
    const creates = { docker: [], swarm: [] };
    for (let w = 0; w < workspaces; w++) for (const p of ['docker', 'swarm']) creates[p].push(await libs[p].create());
    const latency = await interleave(
      [
        { name: 'docker', run: () => libs.docker.run(0, ['/bin/true']) },
        { name: 'swarm', run: () => libs.swarm.run(0, ['/bin/true']) },
      ],
      { rounds, warmup },
    );
    const rate = { docker: await fanOut(libs.docker, workspaces, jobs), swarm: await fanOut(libs.swarm, workspaces, jobs) };
    load.after = loadAverage();
    const create = { docker: summarize(creates.docker), swarm: summarize(creates.swarm) };
    const rows = ['docker', 'swarm'].map((p) => ({
      provider: p,
      'job median ms': ms(latency[p].median),
      'job p90 ms': ms(latency[p].p90),
      'job x docker': (latency[p].median / latency.docker.median).toFixed(2),
      'create median ms': ms(create[p].median),
      'create x docker': (create[p].median / create.docker.median).toFixed(2),
      [`fan-out jobs/s (${workspaces}×${jobs})`]: rate[p].toFixed(1),
      'fan-out x docker': (rate[p] / rate.docker).toFixed(2),
    }));
    const markdown = `${table(rows, Object.keys(rows[0]))}\n\n\`/bin/true\` through the library (engine.run), ${rounds} interleaved rounds after ${warmup} warm-ups; creates alternate between the providers; fan-out runs ${workspaces} workspaces at once, ${jobs} jobs each. The swarm is three dockerd in network namespaces on this same 2-core machine: the ratios are the swarm provider's overhead (the manager's task lookup per call, the node engine's exec), not the capacity more machines would add. Load average ${load.before.join(', ')} → ${load.after.join(', ')}.`;
    return { name: 'swarm-scale-out', result: { rounds, warmup, workspaces, jobs, load, latency, create, fanOutJobsPerSecond: rate }, markdown };
  } finally {
    await libs.docker.close();
    await libs.swarm.close();
    if (swarm.state) execFileSync('bash', [join(repo, 'scripts', 'stop-swarm.sh'), swarm.state], { stdio: 'inherit' });
  }
}
