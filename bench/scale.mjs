// Throughput and scale, three parts, each a ratio against a same-run floor:
//  1. fan-out: trivial jobs (`/bin/true`) at concurrency 2 — headspace native
//     through the library (two workspaces, one job each at a time) against
//     plain spawn and the peers (sandbox-runtime library, docker run). Whole
//     batches are interleaved (A B C A B C …), jobs/s from the median batch.
//  2. store scale: 1,000 workspaces on the FAKE provider (its state file and
//     the real SQLite store on disk; no sandboxes), then `headspace ls --json`
//     and `headspace inspect` latency through the CLI against the same verbs
//     on a store holding one workspace and a bare node start; store size.
//  3. engine memory: peak RSS (VmHWM from /proc/<pid>/status) of the CLI
//     process running `headspace run` while the job prints ~1 GiB through the
//     output sink (`--output-bytes 2G` so the job is not stopped at the
//     budget), against the same process running `/bin/true`.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleave, ms, table } from './lib/stats.mjs';
import { cliEnv, loadAverage, nativeNotReady, runChild, startDocker, startSandboxRuntimeLibrary } from './lib/peers.mjs';
import { startDockerProviderLibrary } from './lib/docker-engine.mjs';
import { prepareClosedBwrap } from './lib/closed-bwrap.mjs';

const RAW_BWRAP = 'raw bwrap (closed profile, no cgroups)';

const FAN_OUT_JOBS = Number(process.env.HS_BENCH_FANOUT_JOBS ?? 200);
const SLOW_PEER_JOBS = Number(process.env.HS_BENCH_FANOUT_SLOW_JOBS ?? 40);
const STORE_WORKSPACES = Number(process.env.HS_BENCH_STORE_WORKSPACES ?? 1000);
const FLOOD_BYTES = Number(process.env.HS_BENCH_FLOOD_BYTES ?? 1024 ** 3);
const MiB = 1024 * 1024;

export async function benchScale({ repo, rounds = Number(process.env.HS_BENCH_SCALE_ROUNDS ?? 3) }) {
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const notReady = await nativeNotReady(repo);
  const load = { before: loadAverage() };
  process.stderr.write('bench: scale: fan-out…\n');
  const fanOut = await benchFanOut({ repo, api, notReady, rounds });
  process.stderr.write(`bench: scale: store with ${STORE_WORKSPACES} workspaces…\n`);
  const store = await benchStore({ repo, api });
  process.stderr.write('bench: scale: engine memory under a 1 GiB flood…\n');
  const memory = notReady ? { skipped: notReady } : await benchMemory({ repo, api });
  load.after = loadAverage();
  const result = { load, fanOut, store, memory };
  return { name: 'scale', result, markdown: render(result) };
}

// ---------------------------------------------------------------- 1. fan-out

async function benchFanOut({ repo, api, notReady, rounds }) {
  const argv = ['/bin/true'];
  const contenders = [{ name: 'plain spawn', jobs: FAN_OUT_JOBS, worker: () => () => runChild(argv[0], argv.slice(1)) }];
  const skips = {};
  const closers = [];
  try {
    // The raw floor (#20): bwrap with the provider's closed profile as the job uid, no cgroups; the aim is headspace ≥ 0.6× its throughput.
    if (notReady) skips[RAW_BWRAP] = notReady;
    else if (process.getuid?.() !== 0) skips[RAW_BWRAP] = 'needs root: its jobs switch to a dedicated uid';
    else {
      const closed = await prepareClosedBwrap(repo);
      closers.push(async () => closed.close());
      const inner = closed.entry(argv);
      contenders.push({ name: RAW_BWRAP, jobs: FAN_OUT_JOBS, worker: () => () => closed.run(inner) });
    }
    if (notReady) skips['headspace library (native)'] = notReady;
    else {
      const home = mkdtempSync(join(tmpdir(), 'hs-bench-fanout-'));
      const engine = api.createHeadspace({ home, defaultProvider: 'native' });
      const workspaces = [];
      for (let i = 0; i < 2; i++) workspaces.push((await engine.create({ purpose: `fan-out worker ${i}` })).provenance.workspace_id);
      closers.push(async () => {
        for (const ws of workspaces) await engine.destroy({ workspaceId: ws, force: true }).catch(() => undefined);
        engine.close();
        rmSync(home, { recursive: true, force: true });
      });
      contenders.push({
        name: 'headspace library (native)',
        jobs: FAN_OUT_JOBS,
        worker: (w) => async () => {
          const r = await engine.run({ workspaceId: workspaces[w], argv });
          if (r.status !== 'success') throw new Error(`engine.run: ${r.status}: ${r.outcome_summary}`);
        },
      });
    }
    for (const [name, start, jobs] of [
      ['sandbox-runtime library', () => startSandboxRuntimeLibrary(repo), FAN_OUT_JOBS],
      // Before the docker peer: it starts (or finds) the engine and sets DOCKER_HOST, which the peer then reuses.
      ['headspace library (docker)', () => startDockerProviderLibrary(repo, 2), SLOW_PEER_JOBS],
      ['docker run --rm', () => startDocker(), SLOW_PEER_JOBS],
    ]) {
      const peer = await start();
      if (peer.skipped) {
        skips[name] = peer.skipped;
        continue;
      }
      closers.push(() => peer.close());
      // The docker provider's workers each use their own workspace (w), as the native library's do.
      contenders.push({ name, jobs, worker: name === 'headspace library (docker)' ? (w) => () => peer.run(w, argv) : () => () => peer.run(argv) });
    }
    // Warm each contender with a few jobs, then interleave whole batches.
    for (const c of contenders) await batch(c, 4);
    const timings = await interleave(
      contenders.map((c) => ({ name: c.name, run: () => batch(c, c.jobs) })),
      { rounds, warmup: 0 },
    );
    const rows = {};
    for (const c of contenders) {
      const t = timings[c.name];
      rows[c.name] = {
        jobs: c.jobs,
        medianBatchMs: t.median,
        p90BatchMs: t.p90,
        jobsPerSecond: c.jobs / (t.median / 1000),
        jobsPerSecondAtP90: c.jobs / (t.p90 / 1000),
      };
    }
    return { rounds, concurrency: 2, rows, skips };
  } finally {
    for (const close of closers.reverse()) await close().catch(() => undefined);
  }
}

/** Runs `jobs` jobs on two workers (concurrency 2); worker w always uses its own workspace. */
async function batch(contender, jobs) {
  let next = 0;
  const work = async (w) => {
    const job = contender.worker(w);
    while (next < jobs) {
      next++;
      await job();
    }
  };
  await Promise.all([work(0), work(1)]);
}

// ---------------------------------------------------------------- 2. store scale

async function benchStore({ repo, api }) {
  const big = mkdtempSync(join(tmpdir(), 'hs-bench-store-big-'));
  const small = mkdtempSync(join(tmpdir(), 'hs-bench-store-one-'));
  try {
    const engine = api.createHeadspace({ home: big, defaultProvider: 'fake' });
    const t0 = process.hrtime.bigint();
    let last;
    for (let i = 0; i < STORE_WORKSPACES; i++) last = (await engine.create({ purpose: `store scale ${i}`, owner: 'bench' })).provenance.workspace_id;
    const createMs = Number(process.hrtime.bigint() - t0) / 1e6;
    // One job in the last workspace, so inspect has a job to show.
    await engine.run({ workspaceId: last, argv: ['echo', 'hello'] });
    engine.close();
    const one = api.createHeadspace({ home: small, defaultProvider: 'fake' });
    const oneWs = (await one.create({ purpose: 'store scale 0', owner: 'bench' })).provenance.workspace_id;
    await one.run({ workspaceId: oneWs, argv: ['echo', 'hello'] });
    one.close();
    const size = diskUsage(big);
    const bin = join(repo, 'bin', 'headspace');
    const envBig = cliEnv({ HEADSPACE_HOME: big, HEADSPACE_PROVIDER: 'fake' });
    const envSmall = cliEnv({ HEADSPACE_HOME: small, HEADSPACE_PROVIDER: 'fake' });
    const outputBytes = {};
    const cli = (key, env, args) => async () => {
      outputBytes[key] = await runCapturing(bin, args, env);
    };
    const floorEnv = cliEnv();
    const latency = await interleave(
      [
        { name: 'node -e 0', run: () => runChild(process.execPath, ['-e', '0'], { env: floorEnv }) },
        { name: 'ls --json (1 workspace)', run: cli('ls1', envSmall, ['ls', '--json']) },
        { name: `ls --json (${STORE_WORKSPACES} workspaces)`, run: cli('lsN', envBig, ['ls', '--json']) },
        { name: `ls, markdown (${STORE_WORKSPACES} workspaces)`, run: cli('lsMdN', envBig, ['ls']) },
        { name: 'inspect (1 workspace)', run: cli('inspect1', envSmall, ['inspect', oneWs]) },
        { name: `inspect (${STORE_WORKSPACES} workspaces)`, run: cli('inspectN', envBig, ['inspect', last]) },
      ],
      { rounds: Number(process.env.HS_BENCH_ROUNDS ?? 15), warmup: 2 },
    );
    return { provider: 'fake', workspaces: STORE_WORKSPACES, createMs, createsPerSecond: STORE_WORKSPACES / (createMs / 1000), size, latency, outputBytes };
  } finally {
    rmSync(big, { recursive: true, force: true });
    rmSync(small, { recursive: true, force: true });
  }
}

function runCapturing(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    let err = '';
    child.stdout.on('data', (c) => (bytes += c.length));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(bytes) : reject(new Error(`${args.join(' ')} exited ${code}: ${err.slice(0, 400)}`))));
  });
}

function diskUsage(dir) {
  const byPart = {};
  let total = 0;
  const walk = (d, part) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, entry.name);
      if (entry.isDirectory()) walk(p, part ?? entry.name);
      else if (entry.isFile()) {
        const bytes = statSync(p).blocks * 512;
        total += bytes;
        const key = part ?? entry.name;
        byPart[key] = (byPart[key] ?? 0) + bytes;
      }
    }
  };
  walk(dir, undefined);
  return { totalBytes: total, byPart };
}

// ---------------------------------------------------------------- 3. engine memory

async function benchMemory({ repo, api }) {
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-flood-'));
  const engine = api.createHeadspace({ home, defaultProvider: 'native' });
  const ws = (await engine.create({ purpose: 'flood bench', budget: { outputBytes: 2 * 1024 ** 3, wallClockSeconds: 900 } })).provenance.workspace_id;
  const capped = (await engine.create({ purpose: 'flood bench, default output budget', budget: { wallClockSeconds: 900 } })).provenance.workspace_id;
  engine.close();
  const bin = join(repo, 'bin', 'headspace');
  const env = cliEnv({ HEADSPACE_HOME: home });
  // ~1 GiB of 64-byte lines, as a chatty build would print them.
  const line = 'flood line: the quick brown fox jumps over the lazy dog 0123456';
  const flood = ['sh', '-c', `yes '${line}' | head -c ${FLOOD_BYTES}`];
  try {
    const floor = await sampleRss(bin, ['run', '--json', ws, '/bin/true'], env, home);
    const floodRun = await sampleRss(bin, ['run', '--json', ws, ...flood], env, home);
    const cappedRun = await sampleRss(bin, ['run', '--json', capped, ...flood], env, home);
    // The throughput floor: the same command, unsandboxed, its stdout drained by this process.
    const t0 = process.hrtime.bigint();
    await runChild(flood[0], flood.slice(1));
    const plainMs = Number(process.hrtime.bigint() - t0) / 1e6;
    return { floodBytes: FLOOD_BYTES, floor, flood: floodRun, capped: cappedRun, plainMs };
  } finally {
    const e = api.createHeadspace({ home, defaultProvider: 'native' });
    for (const id of [ws, capped]) await e.destroy({ workspaceId: id, force: true }).catch(() => undefined);
    e.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/**
 * Runs the CLI and samples /proc/<pid>/status every 20 ms: the peak VmRSS
 * seen while the job's log was still growing (the streaming phase: the
 * sink), and the final VmHWM (everything, including building the result).
 */
function sampleRss(bin, args, env, home) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(bin, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    let hwm = 0;
    let streamingPeak = 0;
    let lastLog = -1;
    const jobs = join(home, 'jobs');
    const timer = setInterval(() => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = (key) => Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
        hwm = Math.max(hwm, kb('VmHWM'));
        let logBytes = 0;
        try {
          for (const f of readdirSync(jobs)) logBytes += statSync(join(jobs, f)).size;
        } catch {
          // no jobs dir yet
        }
        if (logBytes > lastLog) {
          streamingPeak = Math.max(streamingPeak, kb('VmRSS'));
          lastLog = logBytes;
        }
      } catch {
        // the process has exited
      }
    }, 20);
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(timer);
      const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
      let status;
      let totalBytes;
      try {
        const pkg = JSON.parse(out);
        status = pkg.status;
        totalBytes = pkg.resource_usage?.output_bytes ?? pkg.evidence?.[0]?.total_bytes;
      } catch {
        return reject(new Error(`headspace ${args.join(' ')} exited ${code} without a JSON result: ${err.slice(0, 400)}`));
      }
      resolve({ exitCode: code, status, totalBytes, resultBytes: Buffer.byteLength(out), peakRssBytes: hwm, streamingPeakRssBytes: streamingPeak, wallMs });
    });
  });
}

// ---------------------------------------------------------------- rendering

function render({ load, fanOut, store, memory }) {
  const parts = [];
  {
    const plain = fanOut.rows['plain spawn'];
    const srt = fanOut.rows['sandbox-runtime library'];
    const docker = fanOut.rows['docker run --rm'];
    const raw = fanOut.rows[RAW_BWRAP];
    const rows = Object.entries(fanOut.rows).map(([name, r]) => ({
      contender: name,
      jobs: r.jobs,
      'jobs/s (median batch)': r.jobsPerSecond.toFixed(1),
      'jobs/s (p90 batch)': r.jobsPerSecondAtP90.toFixed(1),
      'x plain spawn': (r.jobsPerSecond / plain.jobsPerSecond).toFixed(3),
      'x raw bwrap': raw ? (r.jobsPerSecond / raw.jobsPerSecond).toFixed(2) : 'n/a',
      'x sandbox-runtime lib': srt ? (r.jobsPerSecond / srt.jobsPerSecond).toFixed(2) : 'n/a',
      'x docker run': docker ? (r.jobsPerSecond / docker.jobsPerSecond).toFixed(1) : 'n/a',
    }));
    for (const [name, reason] of Object.entries(fanOut.skips)) rows.push({ contender: name, jobs: 'skipped', 'jobs/s (median batch)': reason });
    parts.push(
      `### Fan-out: \`/bin/true\` at concurrency ${fanOut.concurrency}, ${fanOut.rounds} interleaved batches per contender\n\n${table(rows, ['contender', 'jobs', 'jobs/s (median batch)', 'jobs/s (p90 batch)', 'x plain spawn', 'x raw bwrap', 'x sandbox-runtime lib', 'x docker run'])}\n\nRatios are of throughput (higher is better); aim: headspace library (native) ≥ 0.6× raw bwrap. docker run and the docker provider run ${SLOW_PEER_JOBS} jobs per batch (${FAN_OUT_JOBS} would take minutes), the others ${FAN_OUT_JOBS}.`,
    );
  }
  {
    const floor = store.latency['node -e 0'].median;
    const ls1 = store.latency['ls --json (1 workspace)'].median;
    const in1 = store.latency['inspect (1 workspace)'].median;
    const key = {
      'ls --json (1 workspace)': 'ls1',
      [`ls --json (${store.workspaces} workspaces)`]: 'lsN',
      [`ls, markdown (${store.workspaces} workspaces)`]: 'lsMdN',
      'inspect (1 workspace)': 'inspect1',
      [`inspect (${store.workspaces} workspaces)`]: 'inspectN',
    };
    const rows = Object.entries(store.latency).map(([name, s]) => ({
      'CLI call': name,
      'median ms': ms(s.median),
      'p90 ms': ms(s.p90),
      'x node start': (s.median / floor).toFixed(2),
      'x same verb, 1 workspace': name.startsWith('ls --json') ? (s.median / ls1).toFixed(2) : name.startsWith('inspect') ? (s.median / in1).toFixed(2) : '',
      'stdout bytes': key[name] ? store.outputBytes[key[name]] : '',
    }));
    const parts2 = Object.entries(store.size.byPart)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${(v / MiB).toFixed(2)} MiB`)
      .join(', ');
    parts.push(
      `### Store scale: ${store.workspaces} workspaces on the **fake** provider (real SQLite store and fake state file on disk, no sandboxes)\n\nCreating them through the library: ${(store.createMs / 1000).toFixed(1)} s, ${store.createsPerSecond.toFixed(0)} creates/s. Store on disk: ${(store.size.totalBytes / MiB).toFixed(2)} MiB (${(store.size.totalBytes / store.workspaces / 1024).toFixed(1)} KiB per workspace; ${parts2}).\n\n${table(rows, ['CLI call', 'median ms', 'p90 ms', 'x node start', 'x same verb, 1 workspace', 'stdout bytes'])}`,
    );
  }
  if (memory.skipped) parts.push(`### Engine memory\n\nSkipped: ${memory.skipped}`);
  else {
    const f = memory.floor.peakRssBytes;
    const row = (name, r) => ({
      'CLI run': name,
      status: r.status,
      'output printed': `${(r.totalBytes / MiB).toFixed(0)} MiB`,
      'peak RSS while streaming': r.totalBytes > 0 ? `${(r.streamingPeakRssBytes / MiB).toFixed(1)} MiB` : 'n/a (no output)',
      'peak RSS (VmHWM)': `${(r.peakRssBytes / MiB).toFixed(1)} MiB`,
      'x `/bin/true` run': (r.peakRssBytes / f).toFixed(2),
      'wall s': (r.wallMs / 1000).toFixed(1),
      'result bytes (JSON)': r.resultBytes,
    });
    const rows = [
      row('`/bin/true`', memory.floor),
      row(`flood, \`--output-bytes 2G\``, memory.flood),
      row('flood, default budget (10 MiB: stopped there by design)', memory.capped),
    ];
    const mibps = (ms) => (memory.floodBytes / MiB / (ms / 1000)).toFixed(0);
    parts.push(
      `### Engine memory: the \`headspace run\` process while a job prints ${(memory.floodBytes / MiB).toFixed(0)} MiB\n\n${table(rows, ['CLI run', 'status', 'output printed', 'peak RSS while streaming', 'peak RSS (VmHWM)', 'x `/bin/true` run', 'wall s', 'result bytes (JSON)'])}\n\n"While streaming" is the largest VmRSS sampled (every 20 ms) while the job log was still growing; VmHWM is the whole process, including reading the log back to choose the excerpt. One run each. Throughput: the flood through headspace ${mibps(memory.flood.wallMs)} MiB/s against ${mibps(memory.plainMs)} MiB/s for the same command spawned plainly and drained by the bench process (${(memory.flood.wallMs / memory.plainMs).toFixed(1)}× the time; the job is also held to 1 cpu by its budget, the plain command is not).`,
    );
  }
  parts.push(`Load average (1, 5, 15 min): ${load.before.join(', ')} before, ${load.after.join(', ')} after.`);
  return parts.join('\n\n');
}
