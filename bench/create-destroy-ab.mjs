// A/B of native create and destroy (#20 item 2): two builds of headspace
// (BEFORE and AFTER, each a repo with dist/ built) measured in one process,
// interleaved round by round with raw bwrap `/bin/true` (the closed profile,
// as bench/native-overhead.mjs runs it) and `node -e 0`:
//   library create / destroy (engine.create / engine.destroy), one workspace per round;
//   CLI `headspace create` (and its destroy, untimed), NODE_EXTRA_CA_CERTS removed.
// Wall time per call (median, p90), and CPU: the node process's own (user+sys)
// per library call, and per whole cycle everything this process and its
// children used, background refills and reclaims included (read from
// /proc/self/stat once their shells have ended).
//
//   node bench/create-destroy-ab.mjs BEFORE_REPO AFTER_REPO [rounds]
// Needs root, bwrap and loop devices.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prepareClosedBwrap } from './lib/closed-bwrap.mjs';
import { summarize, table, ms } from './lib/stats.mjs';

const [beforeRepo, afterRepo, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 20);
const TICK_MS = 10; // USER_HZ 100

function selfTicks() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime stime cutime cstime are fields 14-17 (index 11-14 after the command).
  return { own: Number(f[11]) + Number(f[12]), children: Number(f[13]) + Number(f[14]) };
}

function runChild(cmd, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.stdout.on('data', () => undefined);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')}: exit ${code}: ${err}`))));
  });
}

/** Waits until no refill or reclaim shell is running (their CPU then counts as this process's children's). */
async function quiesce() {
  for (;;) {
    const busy = readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .some((p) => {
        try {
          const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
          return argv[3] === 'headspace-pool-refill' || argv[3] === 'headspace-reclaim';
        } catch {
          return false;
        }
      });
    if (!busy) return;
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function side(label, repo) {
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const libHome = mkdtempSync(join(tmpdir(), `hs-ab-${label}-lib-`));
  const cliHome = mkdtempSync(join(tmpdir(), `hs-ab-${label}-cli-`));
  const engine = api.createHeadspace({ home: libHome, defaultProvider: 'native' });
  const env = { ...process.env, HEADSPACE_HOME: cliHome, HEADSPACE_PROVIDER: 'native' };
  delete env.NODE_EXTRA_CA_CERTS;
  const bin = join(repo, 'bin', 'headspace');
  let cliSeq = 0;
  return {
    label,
    engine,
    async libCreate() {
      return (await engine.create({})).provenance.workspace_id;
    },
    libDestroy: (id) => engine.destroy({ workspaceId: id }),
    async cliCreate() {
      const id = `ab-${label}-${cliSeq++}`;
      await runChild(bin, ['create', '--workspace-id', id], env);
      return id;
    },
    cliDestroy: (id) => runChild(bin, ['destroy', id], env),
    close() {
      engine.close?.();
      rmSync(libHome, { recursive: true, force: true });
      rmSync(cliHome, { recursive: true, force: true });
    },
  };
}

const closed = await prepareClosedBwrap(afterRepo);
const trueEntry = closed.entry(['/bin/true']);
const sides = [await side('before', beforeRepo), await side('after', afterRepo)];
const samples = {};
const push = (name, value) => (samples[name] ??= []).push(value);
const timed = async (name, fn) => {
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const out = await fn();
  push(name, Number(process.hrtime.bigint() - t0) / 1e6);
  const cpu = process.cpuUsage(cpu0);
  if (!name.includes('CLI')) push(`${name} (own CPU)`, (cpu.user + cpu.system) / 1000);
  return out;
};
const nodeEnv = { ...process.env };
delete nodeEnv.NODE_EXTRA_CA_CERTS;
const cycleTicks = { before: 0, after: 0 };
const load = { before: loadavg()[0] };
// Warm-up: one cycle each (fills the pool of the after side).
for (const s of sides) {
  await s.libDestroy(await s.libCreate());
  await s.cliDestroy(await s.cliCreate());
}
await quiesce();
for (let i = 0; i < rounds; i++) {
  await timed('raw bwrap /bin/true', () => closed.run(trueEntry));
  await timed('node -e 0', () => runChild(process.execPath, ['-e', '0'], nodeEnv));
  // Alternate which side goes first, so neither always runs right after the other's background work.
  for (const s of i % 2 === 0 ? sides : [...sides].reverse()) {
    await quiesce();
    const t0 = selfTicks();
    const id = await timed(`${s.label}: library create`, () => s.libCreate());
    await timed(`${s.label}: library destroy`, () => s.libDestroy(id));
    const c0 = selfTicks().children;
    const cli = await timed(`${s.label}: CLI create`, () => s.cliCreate());
    // The CLI process and the children it waited for (mount, …): its detached refill shell is not counted here.
    push(`${s.label}: CLI create (CPU of the CLI process, mean)`, (selfTicks().children - c0) * TICK_MS);
    await s.cliDestroy(cli);
    await quiesce();
    const t1 = selfTicks();
    cycleTicks[s.label] += t1.own - t0.own + t1.children - t0.children;
  }
}
load.after = loadavg()[0];
for (const s of sides) s.close();
closed.close?.();

const raw = summarize(samples['raw bwrap /bin/true']).median;
const node = summarize(samples['node -e 0']).median;
const rows = Object.entries(samples).map(([name, v]) => {
  const s = summarize(v);
  const cpu = name.includes('CPU');
  if (name.includes('mean)')) s.median = v.reduce((a, b) => a + b, 0) / v.length; // 10 ms ticks: a mean, not a median
  return {
    contender: name,
    'median ms': ms(s.median),
    'p90 ms': ms(s.p90),
    'x raw bwrap': cpu ? '' : (s.median / raw).toFixed(2),
    '(median − node) / raw bwrap': name.includes('CLI') && !cpu ? ((s.median - node) / raw).toFixed(2) : '',
  };
});
console.log(`n=${rounds} per row, load average ${load.before.toFixed(1)} → ${load.after.toFixed(1)}\n`);
console.log(table(rows, ['contender', 'median ms', 'p90 ms', 'x raw bwrap', '(median − node) / raw bwrap']));
console.log(
  `\nCPU per whole cycle (library create+destroy, CLI create+destroy, background refill and reclaim included; this process and its children): before ${((cycleTicks.before * TICK_MS) / rounds).toFixed(0)} ms, after ${((cycleTicks.after * TICK_MS) / rounds).toFixed(0)} ms`,
);
