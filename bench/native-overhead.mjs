// What the native provider costs per job over the floors it is built on.
// Five contenders run the same command, interleaved (A B C D E A B …):
//   1. plain child_process.spawn;
//   2. raw bubblewrap with the provider's closed profile (its own planner,
//      seccomp program and host exposures, as the job uid), no cgroups;
//   3. the same bwrap inside freshly created cgroup v1 memory+pids+cpu groups:
//      created and limited per job, a `sh` launcher places itself then execs
//      bwrap, the groups are removed afterwards (the naive budgeted floor);
//   4. headspace through the library: one workspace, engine.run per sample;
//   5. headspace through the CLI: `headspace run <ws> …` per sample.
// Plus, to split provider from engine cost: the native provider alone
// (provider.run on its own workspace, no store, log or result package).
// Needs root, bwrap and cgroup v1 memory/pids/cpu; otherwise it skips and says why.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, chownSync, rmSync, rmdirSync, writeFileSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleave, ms, table, SPACED_CALLS_GAP_MS } from './lib/stats.mjs';
import { JOB_UID, prepareClosedBwrap } from './lib/closed-bwrap.mjs';

const COMMANDS = [
  { key: 'true', label: '`/bin/true`', argv: ['/bin/true'] },
  { key: 'python', label: '`python3 -c pass`', argv: ['python3', '-c', 'pass'] },
];
const V1_BASE = '/sys/fs/cgroup';

export async function benchNativeOverhead({ repo, rounds = Number(process.env.HS_BENCH_ROUNDS ?? 30), warmup = 3 }) {
  const skip = await whyNot(repo);
  if (skip !== undefined) {
    process.stderr.write(`bench: native-overhead skipped: ${skip}\n`);
    return { name: 'native-overhead', result: { skipped: skip }, markdown: `Skipped: ${skip}` };
  }
  const mod = (p) => import(pathToFileURL(join(repo, 'dist', p)).href);
  const [api, { createNativeProvider }] = await Promise.all([mod('api/index.js'), mod('providers/native/native-provider.js')]);
  const closed = await prepareClosedBwrap(repo);
  const { scratch, filesDir, policy, plan } = closed;

  // Naive per-job cgroups live under their own parent, removed at the end.
  const naiveParent = `headspace-bench-${process.pid}`;
  const controllers = ['memory', 'pids', 'cpu'];
  for (const c of controllers) mkdirSync(join(V1_BASE, c, naiveParent), { recursive: true });
  let naiveSeq = 0;

  const libHome = mkdtempSync(join(tmpdir(), 'hs-bench-native-lib-'));
  const provRoot = mkdtempSync(join(tmpdir(), 'hs-bench-native-prov-'));
  const provider = createNativeProvider({ root: provRoot });
  // A workspace made without the engine's store: the identity the store would give a first workspace.
  await provider.create({ workspaceId: 'bench', policy, profile: 'host', jobUser: { uid: JOB_UID + 1, gid: JOB_UID + 1 } });
  let jobSeq = 0;
  const cliHome = mkdtempSync(join(tmpdir(), 'hs-bench-native-cli-'));
  const engine = api.createHeadspace({ home: libHome, defaultProvider: 'native' });
  const libWs = (await engine.create({})).provenance.workspace_id;
  const cliEngine = api.createHeadspace({ home: cliHome, defaultProvider: 'native' });
  const cliWs = (await cliEngine.create({})).provenance.workspace_id;
  cliEngine.close();
  // NODE_EXTRA_CA_CERTS (set on these hosts) costs ~40 ms per node start and is no part of headspace.
  const cliEnv = { ...process.env, HEADSPACE_HOME: cliHome };
  delete cliEnv.NODE_EXTRA_CA_CERTS;
  const bin = join(repo, 'bin', 'headspace');

  const lifecycleIds = [];
  const load = { before: loadavg().map((x) => Number(x.toFixed(2))) };
  const tables = {};
  try {
    for (const command of COMMANDS) {
      const inner = closed.entry(command.argv);
      const contenders = [
        { name: 'plain spawn', run: () => runChild(command.argv[0], command.argv.slice(1), { env: plan.env, cwd: filesDir, uid: JOB_UID, gid: JOB_UID }) },
        { name: 'raw bwrap (closed profile, no cgroups)', run: () => closed.run(inner) },
        {
          name: 'bwrap in fresh cgroups (naive floor)',
          run: async () => {
            const dirs = controllers.map((c) => join(V1_BASE, c, naiveParent, String(naiveSeq)));
            naiveSeq++;
            createNaiveGroups(dirs, policy.budget);
            try {
              await closed.run(
                inner,
                dirs.map((d) => join(d, 'cgroup.procs')),
              );
            } finally {
              for (const d of dirs) await removeGroup(d);
            }
          },
        },
        {
          name: 'headspace library (engine.run)',
          run: async () => {
            const r = await engine.run({ workspaceId: libWs, argv: command.argv });
            if (r.status !== 'success') throw new Error(`engine.run: ${r.status}: ${r.outcome_summary}`);
            await settle();
          },
        },
        {
          name: 'native provider alone (provider.run)',
          run: async () => {
            const o = await provider.run({
              workspaceId: 'bench',
              jobId: `job-${jobSeq++}`,
              argv: command.argv,
              env: {},
              policy,
              onOutput: () => undefined,
              signal: new AbortController().signal,
            });
            if (o.exitCode !== 0) throw new Error(`provider.run: ${JSON.stringify(o)}`);
            await settle();
          },
        },
        {
          name: 'headspace CLI (headspace run)',
          run: () => runChild(bin, ['run', cliWs, ...command.argv], { env: cliEnv }),
        },
      ];
      tables[command.key] = await interleave(contenders, { rounds, warmup, gapMs: SPACED_CALLS_GAP_MS });
    }
    // Create and destroy through the library (#20), interleaved with the raw bwrap `/bin/true` they are measured against:
    // each round creates one workspace and destroys the one it just created.
    const trueEntry = closed.entry(['/bin/true']);
    tables.lifecycle = await interleave(
      [
        { name: 'raw bwrap (closed profile, no cgroups)', run: () => closed.run(trueEntry) },
        { name: 'headspace library create (engine.create)', run: async () => void lifecycleIds.push((await engine.create({})).provenance.workspace_id) },
        { name: 'headspace library destroy (engine.destroy)', run: () => engine.destroy({ workspaceId: lifecycleIds.shift() }) },
      ],
      { rounds, warmup, gapMs: SPACED_CALLS_GAP_MS },
    );
  } finally {
    load.after = loadavg().map((x) => Number(x.toFixed(2)));
    await engine.destroy({ workspaceId: libWs }).catch(() => undefined);
    for (const id of lifecycleIds) await engine.destroy({ workspaceId: id }).catch(() => undefined);
    engine.close();
    const cleanup = api.createHeadspace({ home: cliHome, defaultProvider: 'native' });
    await cleanup.destroy({ workspaceId: cliWs }).catch(() => undefined);
    cleanup.close();
    await provider.remove('bench').catch(() => undefined);
    for (const c of controllers) await removeGroup(join(V1_BASE, c, naiveParent));
    for (const dir of [scratch, libHome, cliHome, provRoot]) rmSync(dir, { recursive: true, force: true });
  }

  const sections = [];
  for (const command of COMMANDS) {
    const result = tables[command.key];
    const plain = result['plain spawn'].median;
    const raw = result['raw bwrap (closed profile, no cgroups)'].median;
    const naive = result['bwrap in fresh cgroups (naive floor)'].median;
    const rows = Object.entries(result).map(([name, s]) => ({
      contender: name,
      'median ms': ms(s.median),
      'p90 ms': ms(s.p90),
      'x plain': (s.median / plain).toFixed(2),
      'x raw bwrap': (s.median / raw).toFixed(2),
      'x naive floor': (s.median / naive).toFixed(2),
    }));
    sections.push(
      `${command.label}, n=${rounds} interleaved after ${warmup} warm-ups\n\n${table(rows, ['contender', 'median ms', 'p90 ms', 'x plain', 'x raw bwrap', 'x naive floor'])}`,
    );
  }
  {
    const life = tables.lifecycle;
    const raw = life['raw bwrap (closed profile, no cgroups)'].median;
    const rows = Object.entries(life).map(([name, s]) => ({
      contender: name,
      'median ms': ms(s.median),
      'p90 ms': ms(s.p90),
      'x raw bwrap': (s.median / raw).toFixed(2),
    }));
    sections.push(
      `Create and destroy (one workspace per round, default policy), n=${rounds} interleaved after ${warmup} warm-ups; aim: each ≤ 5× raw bwrap \`/bin/true\`\n\n${table(rows, ['contender', 'median ms', 'p90 ms', 'x raw bwrap'])}`,
    );
  }
  const notes = [
    `Load average (1, 5, 15 min): ${load.before.join(', ')} before, ${load.after.join(', ')} after.`,
    `Jobs run as uid ${JOB_UID}; bwrap contenders use the provider's own plan (closed profile, seccomp, /proc masks, and the exec shim as the job's entry point: descriptors closed, Landlock applied). The naive floor creates memory+pids+cpu v1 groups per job, places the launcher, and removes them (inside the timing). The library and provider rows include one macrotask turn after each job (work deferred by a turn is charged to them); every call is followed by an untimed ${SPACED_CALLS_GAP_MS} ms pause, as an agent's calls come spaced, in which headspace spawns the workspace's next standby launcher (10 ms after a spaced job's end), so that fork lands in no contender's timing. The CLI runs without NODE_EXTRA_CA_CERTS (a host setting that adds ~40 ms to every node start).`,
  ];
  return { name: 'native-overhead', result: { rounds, load, tables }, markdown: `${sections.join('\n\n')}\n\n${notes.join('\n')}` };
}

/** Why this benchmark cannot run here, or undefined when it can. */
async function whyNot(repo) {
  if (process.platform !== 'linux') return `needs Linux (found ${process.platform})`;
  if (process.getuid?.() !== 0) return 'needs root: jobs switch to a dedicated uid and the naive floor creates cgroup v1 groups';
  if (!['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].some((p) => existsSync(p))) return 'bubblewrap (bwrap) not found: run scripts/setup-native.sh';
  for (const c of ['memory', 'pids', 'cpu']) {
    if (!existsSync(join(V1_BASE, c, 'cgroup.procs')))
      return `cgroup v1 ${c} controller not mounted at ${join(V1_BASE, c)} (the naive floor is measured on v1 only)`;
  }
  if (!existsSync(join(repo, 'dist', 'api', 'index.js'))) return 'dist/ is missing: run npx tsc -p tsconfig.json first';
  const { createNativeProvider } = await import(pathToFileURL(join(repo, 'dist', 'providers', 'native', 'native-provider.js')).href);
  const dir = mkdtempSync(join(tmpdir(), 'hs-bench-native-probe-'));
  try {
    const probe = await createNativeProvider({ root: dir }).probe();
    if (!probe.ready)
      return `the native provider is not ready: ${probe.checks
        .filter((c) => !c.ok)
        .map((c) => `${c.name}: ${c.detail}`)
        .join('; ')}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return undefined;
}

/**
 * One macrotask turn inside the timing: work the provider defers past a job
 * (spawning the next job's standby launcher) is charged to that job, not to
 * whichever contender runs next.
 */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function runChild(cmd, args, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${stderr.slice(0, 400)}`))));
  });
}

function createNaiveGroups(dirs, budget) {
  const [memory, pids, cpu] = dirs;
  for (const d of dirs) {
    mkdirSync(d);
    chownSync(join(d, 'cgroup.procs'), JOB_UID, JOB_UID);
  }
  writeFileSync(join(memory, 'memory.limit_in_bytes'), String(budget.memoryBytes));
  if (existsSync(join(memory, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(memory, 'memory.memsw.limit_in_bytes'), String(budget.memoryBytes));
  writeFileSync(join(pids, 'pids.max'), String(budget.pidsLimit + 2));
  writeFileSync(join(cpu, 'cpu.cfs_quota_us'), String(Math.max(1000, Math.round(budget.cpuLimit * 100_000))));
}

/** rmdir, retrying while the kernel still reports the group busy just after its last process exited. */
async function removeGroup(dir) {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      rmdirSync(dir);
      return;
    } catch (error) {
      if (error.code === 'ENOENT') return;
      if (error.code !== 'EBUSY' || Date.now() > deadline) throw error;
      if (readFileSync(join(dir, 'cgroup.procs'), 'utf8').trim() === '') await new Promise((r) => setImmediate(r));
      else await new Promise((r) => setTimeout(r, 1));
    }
  }
}
