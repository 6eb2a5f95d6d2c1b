// A/B of the library's fake create+run+destroy cycle (#20 item 4): two builds
// of headspace (A and B, each a repo with dist/ built) loaded into one
// process, each with its own engine and store, measured in interleaved
// batches so both sides see the same machine load. Reports, per side, the
// process CPU (user+sys, every thread: V8's compiler and GC threads and any
// checkpoint worker count), the main thread's own CPU (Linux schedstat), the
// wall per cycle, and cycles per second.
//
//   node bench/fake-ab.mjs A_REPO B_REPO [batches=10] [cycles=200] [order=ab|ba]
//
// The order alternates within a run (A B, B A, A B, ...); `order` picks
// which side starts, so two runs can start from either side.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fakeCycleEngine } from './lib/fake-cycle.mjs';

const [aRepo, bRepo, batchesArg, cyclesArg, orderArg] = process.argv.slice(2);
if (!aRepo || !bRepo) {
  console.error('usage: node bench/fake-ab.mjs A_REPO B_REPO [batches] [cycles] [ab|ba]');
  process.exit(2);
}
const batches = Number(batchesArg ?? 10);
const cycles = Number(cyclesArg ?? 200);
const startWithB = orderArg === 'ba';
/** This thread's time on a CPU in ns (/proc/thread-self/schedstat), or 0 where there is none. */
const threadNs = () => {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
};

async function side(name, repo) {
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const home = mkdtempSync(join(tmpdir(), `hs-fake-ab-${name}-`));
  const { engine, cycle } = fakeCycleEngine(api, home, `${name} `);
  return { name, repo, home, engine, cycle, cpuUs: 0, mainNs: 0, wallNs: 0n, done: 0, batchRates: [] };
}

async function batch(s) {
  const cpu0 = process.cpuUsage();
  const main0 = threadNs();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < cycles; i++) await s.cycle();
  const wall = process.hrtime.bigint() - t0;
  s.mainNs += threadNs() - main0;
  const cpu = process.cpuUsage(cpu0);
  s.cpuUs += cpu.user + cpu.system;
  s.wallNs += wall;
  s.done += cycles;
  s.batchRates.push(cycles / (Number(wall) / 1e9));
}

const A = await side('A', aRepo);
const B = await side('B', bRepo);
// Warm-up: both sides compiled and their stores past their first pages.
for (const s of [A, B]) for (let i = 0; i < 300; i++) await s.cycle();

const load0 = loadavg()[0];
for (let i = 0; i < batches; i++) {
  const pair = (i % 2 === 0) !== startWithB ? [A, B] : [B, A];
  for (const s of pair) await batch(s);
}
const load1 = loadavg()[0];

const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const row = (s) => {
  const cpu = s.cpuUs / s.done;
  const wall = Number(s.wallNs) / 1e3 / s.done;
  return { cpu, main: s.mainNs / 1e3 / s.done, wall, rate: 1e6 / wall, med: median(s.batchRates) };
};
const a = row(A);
const b = row(B);
console.log(`fake-ab: ${batches} x ${cycles} cycles a side, interleaved, first ${startWithB ? 'B' : 'A'}; load ${load0.toFixed(2)} -> ${load1.toFixed(2)}`);
console.log(`A ${aRepo}`);
console.log(`B ${bRepo}`);
console.log('| side | CPU µs/cycle | main thread µs/cycle | wall µs/cycle | cycles/s | median batch cycles/s |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const [n, r] of [
  ['A', a],
  ['B', b],
]) {
  console.log(`| ${n} | ${r.cpu.toFixed(0)} | ${r.main.toFixed(0)} | ${r.wall.toFixed(0)} | ${r.rate.toFixed(0)} | ${r.med.toFixed(0)} |`);
}
console.log(`B/A: CPU ${(b.cpu / a.cpu).toFixed(3)}x, main thread ${(b.main / a.main).toFixed(3)}x, wall ${(b.wall / a.wall).toFixed(3)}x`);

for (const s of [A, B]) {
  s.engine.close();
  rmSync(s.home, { recursive: true, force: true });
}
