// A/B of the native library `run` (#20 item 3): two builds of headspace
// (BEFORE and AFTER, each a repo with dist/ built) measured in one process.
//   spaced: raw bwrap `/bin/true` (the closed profile, as native-overhead runs
//     it), BEFORE's engine.run and AFTER's, interleaved with GAP ms before each
//     call (an agent's calls come spaced; the benchmark's contenders too);
//   loop: per build, two workspaces running jobs back to back at once (a
//     fan-out), builds alternated round by round, first side alternating.
// Wall medians; which side each call ran on is the only difference.
//
//   node bench/native-run-ab.mjs BEFORE_REPO AFTER_REPO [calls] [loop rounds]
// Needs root, bwrap and cgroups (as native-overhead).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prepareClosedBwrap } from './lib/closed-bwrap.mjs';

const [beforeRepo, afterRepo, callsArg, roundsArg] = process.argv.slice(2);
if (beforeRepo === undefined || afterRepo === undefined) {
  console.error('usage: node bench/native-run-ab.mjs BEFORE_REPO AFTER_REPO [calls=40] [loop rounds=8]');
  process.exit(2);
}
const calls = Number(callsArg ?? 40);
const rounds = Number(roundsArg ?? 8);
const GAP_MS = 20;
const LOOP_JOBS = 40;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const load = () => loadavg()[0].toFixed(2);

async function sideOf(repo) {
  const api = await import(pathToFileURL(join(repo, 'dist/api/index.js')).href);
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-run-ab-'));
  const engine = api.createHeadspace({ home, defaultProvider: 'native' });
  const ws = [];
  for (let i = 0; i < 3; i++) ws.push((await engine.create({})).provenance.workspace_id);
  const run = async (workspaceId) => {
    const result = await engine.run({ workspaceId, argv: ['/bin/true'] });
    if (result.status !== 'success') throw new Error(`${repo}: a /bin/true job ended ${result.status}: ${result.outcome_summary}`);
  };
  const close = async () => {
    for (const workspaceId of ws) await engine.destroy({ workspaceId, force: true }).catch(() => undefined);
    engine.close();
    rmSync(home, { recursive: true, force: true });
  };
  return { run, ws, close };
}

const closed = await prepareClosedBwrap(afterRepo);
const inner = closed.entry(['/bin/true']);
const sides = [await sideOf(beforeRepo), await sideOf(afterRepo)];
try {
  const spacedLoad = load();
  const times = [[], [], []];
  const contenders = [() => closed.run(inner), () => sides[0].run(sides[0].ws[0]), () => sides[1].run(sides[1].ws[0])];
  for (let i = 0; i < calls + 3; i++) {
    for (const k of i % 2 === 0 ? [0, 1, 2] : [0, 2, 1]) {
      await new Promise((resolve) => setTimeout(resolve, GAP_MS));
      const start = performance.now();
      await contenders[k]();
      if (i >= 3) times[k].push(performance.now() - start);
    }
  }
  const [raw, before, after] = times.map(median);
  console.log(`spaced (${GAP_MS} ms before each call, n = ${calls}, load ${spacedLoad} → ${load()}):`);
  console.log(
    `  raw bwrap ${raw.toFixed(2)} ms; before ${before.toFixed(2)} ms (${(before / raw).toFixed(3)}× raw); after ${after.toFixed(2)} ms (${(after / raw).toFixed(3)}× raw); after/before ${(after / before).toFixed(3)}`,
  );

  const loopLoad = load();
  const rates = [[], []];
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 === 0 ? [0, 1] : [1, 0]) {
      const side = sides[k];
      const start = performance.now();
      await Promise.all(
        side.ws.slice(1).map(async (workspaceId) => {
          for (let j = 0; j < LOOP_JOBS; j++) await side.run(workspaceId);
        }),
      );
      rates[k].push((2 * LOOP_JOBS) / ((performance.now() - start) / 1000));
    }
  }
  const [beforeRate, afterRate] = rates.map(median);
  console.log(`loop (2 workspaces × ${LOOP_JOBS} jobs back to back, ${rounds} rounds a side, load ${loopLoad} → ${load()}):`);
  console.log(`  before ${beforeRate.toFixed(1)} jobs/s; after ${afterRate.toFixed(1)} jobs/s; after/before ${(afterRate / beforeRate).toFixed(3)}`);
} finally {
  for (const side of sides) await side.close();
  closed.close();
}
