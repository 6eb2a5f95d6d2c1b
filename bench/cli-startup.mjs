// What a CLI call costs over a bare node start (#20). Interleaved, median
// and p90, against floors measured in the same run:
//   - `node -e 0` for `headspace version` and `headspace ls --json`
//     (aims: ≤ 1.3× and ≤ 1.5×);
//   - `node -e 0` + 4× raw bubblewrap for `headspace run W /bin/true` on the
//     native provider (aim), when native is ready here (root, bwrap);
//   - the same calls (create and destroy too) through `headspace serve`
//     (HEADSPACE_SERVE=auto, the home's server started before the rounds;
//     rows named `… (through serve)`, each against its in-process row's
//     aim): the CLI is then a thin client, and the server's CPU time per
//     call is counted beside the client's, read from /proc.
// CPU time per call (user + sys of the child, from /proc/self/stat's
// cutime/cstime, 10 ms ticks averaged over the rounds) is given beside the
// wall time: on a loaded machine wall medians drift, CPU much less.
//   - `node -e 0` + 6× raw bubblewrap for `headspace create --provider
//     native` (aim), each round's workspace destroyed by the next contender
//     (`headspace destroy W --force`, measured, no aim of its own).
// Every contender runs with a cleared environment: PATH, plus HEADSPACE_HOME
// for headspace. The host sets NODE_EXTRA_CA_CERTS, which adds ~40 ms to
// every node start (it reads and parses the CA bundle) and would flatter
// every ratio; nothing else from the caller's environment reaches a child.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleave, ms, table, SPACED_CALLS_GAP_MS } from './lib/stats.mjs';

const PATH = '/usr/local/bin:/usr/bin:/bin';
const BWRAP = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));
const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU ms of a process (utime + stime), or of this process's waited-for children (cutime + cstime). */
function cpuMs(pid = 'self', children = false) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // Fields after the command: state is [0], utime [11], stime [12], cutime [13], cstime [14].
    return (children ? Number(fields[13]) + Number(fields[14]) : Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** Wraps a contender so its CPU time (its child's, plus the server's when given) is summed per call. */
function withCpu(contender, serverPid) {
  const spent = { ms: 0, calls: 0 };
  return {
    ...contender,
    spent,
    run: async () => {
      const [child0, server0] = [cpuMs('self', true), serverPid === undefined ? 0 : cpuMs(serverPid)];
      await contender.run();
      spent.ms += cpuMs('self', true) - child0 + (serverPid === undefined ? 0 : cpuMs(serverPid) - server0);
      spent.calls += 1;
    },
  };
}

export async function benchCliStartup({ repo, rounds = Number(process.env.HS_BENCH_ROUNDS ?? 20) }) {
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-cli-'));
  const bin = join(repo, 'bin', 'headspace');
  const hsEnv = { PATH, HEADSPACE_HOME: home };
  const exec = (cmd, args, env) => () => {
    const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  };
  const headspace = (args) => exec(process.execPath, [bin, ...args], hsEnv);
  spawnSync(process.execPath, [bin, 'ls', '--json'], { env: hsEnv }); // create the store once

  // A native workspace for `run`, when this host can give one.
  let workspace;
  let servedWorkspace;
  const created = [];
  let skipRun = BWRAP === undefined ? 'no bubblewrap' : process.getuid?.() !== 0 ? 'not root' : undefined;
  if (skipRun === undefined) {
    const made = spawnSync(process.execPath, [bin, 'create', '--provider', 'native', '--json'], { env: hsEnv, encoding: 'utf8' });
    // Two workspaces: the in-process rows run in one and the `(through serve)` rows in the other. In one workspace each
    // process found the other's standby launcher in the cgroup, killed it as a leftover and started its job the slow way.
    const second = made.status === 0 ? spawnSync(process.execPath, [bin, 'create', '--provider', 'native', '--json'], { env: hsEnv, encoding: 'utf8' }) : made;
    if (made.status === 0 && second.status === 0) {
      workspace = JSON.parse(made.stdout).provenance.workspace_id;
      servedWorkspace = JSON.parse(second.stdout).provenance.workspace_id;
    } else skipRun = `native create failed (${second.status}): ${second.stderr.split('\n')[0]}`;
  }
  // The home's server, started before the rounds (its first call would otherwise pay its start).
  const server = spawn(process.execPath, [bin, 'serve', '--idle', '600'], { env: hsEnv, stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => server.stdout.once('data', resolve));
  const serveEnv = { ...hsEnv, HEADSPACE_SERVE: 'auto' };
  // Named after the in-process row plus a suffix, so the #20 scorecard (lib/scorecard.mjs) gives each its own row against the same aim.
  const THROUGH_SERVE = ' (through serve)';
  const served = (args, name = `headspace ${args.join(' ')}`) =>
    withCpu({ name: `${name}${THROUGH_SERVE}`, run: exec(process.execPath, [bin, ...args], serveEnv) }, server.pid);
  const contenders = [
    withCpu({ name: 'node -e 0', run: exec(process.execPath, ['-e', '0'], { PATH }) }),
    withCpu({ name: 'headspace version', run: headspace(['version']) }),
    withCpu({ name: 'headspace ls --json', run: headspace(['ls', '--json']) }),
    withCpu({ name: `headspace version${THROUGH_SERVE}`, run: exec(process.execPath, [bin, 'version'], serveEnv) }),
    served(['ls', '--json']),
  ];
  if (workspace !== undefined) {
    // The smallest bwrap call that makes a sandbox: new namespaces, / read-only, fresh /proc and /dev.
    // A lower bound: native-overhead's "raw bwrap" (the provider's closed profile as the job uid) costs more.
    const rawBwrap = ['--unshare-all', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '/bin/true'];
    contenders.push(
      withCpu({ name: 'raw bwrap /bin/true', run: exec(BWRAP, rawBwrap, { PATH }) }),
      withCpu({ name: 'headspace run W /bin/true', run: headspace(['run', workspace, '/bin/true']) }),
      served(['run', servedWorkspace, '/bin/true'], 'headspace run W /bin/true'),
    );
    // CLI create (aim: ≤ node + 6× raw bwrap, #20), in-process and through the server, each followed by the destroy of the
    // workspace it just made, so one lives at a time.
    const createOne = (env) => () => {
      const r = spawnSync(process.execPath, [bin, 'create', '--provider', 'native', '--json'], { env, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`headspace create failed (${r.status}): ${r.stderr}`);
      created.push(JSON.parse(r.stdout).provenance.workspace_id);
    };
    const destroyOne = (env) => () => exec(process.execPath, [bin, 'destroy', created.shift(), '--force'], env)();
    contenders.push(
      withCpu({ name: 'headspace create --provider native', run: createOne(hsEnv) }),
      withCpu({ name: 'headspace destroy W --force', run: destroyOne(hsEnv) }),
      withCpu({ name: `headspace create --provider native${THROUGH_SERVE}`, run: createOne(serveEnv) }, server.pid),
      withCpu({ name: `headspace destroy W --force${THROUGH_SERVE}`, run: destroyOne(serveEnv) }, server.pid),
    );
  }
  const load = { before: loadavg().map((x) => Number(x.toFixed(2))) };
  let result;
  try {
    result = await interleave(contenders, { rounds, gapMs: SPACED_CALLS_GAP_MS });
  } finally {
    load.after = loadavg().map((x) => Number(x.toFixed(2)));
    spawnSync(process.execPath, [bin, 'serve', '--stop'], { env: hsEnv });
    await new Promise((resolve) => (server.exitCode === null ? server.once('exit', resolve) : resolve()));
    for (const id of workspace === undefined ? created : [workspace, servedWorkspace, ...created])
      spawnSync(process.execPath, [bin, 'destroy', id, '--force'], { env: hsEnv });
    rmSync(home, { recursive: true, force: true });
  }
  for (const c of contenders) result[c.name].cpu = c.spent.calls > 0 ? c.spent.ms / c.spent.calls : NaN;
  const node = result['node -e 0'].median;
  const nodeCpu = result['node -e 0'].cpu;
  const bwrap = result['raw bwrap /bin/true']?.median;
  const bwrapCpu = result['raw bwrap /bin/true']?.cpu;
  const runAim = node + 4 * (bwrap ?? NaN);
  const aims = {
    'headspace version': 1.3 * node,
    'headspace ls --json': 1.5 * node,
    'headspace run W /bin/true': runAim,
    'headspace create --provider native': node + 6 * (bwrap ?? NaN),
  };
  // A row through the server has its in-process row's aim.
  const aimOf = (name) => aims[name.endsWith(THROUGH_SERVE) ? name.slice(0, -THROUGH_SERVE.length) : name];
  const hasK = (name) => /^headspace (run W \/bin\/true|create --provider native)( \(through serve\))?$/.test(name);
  const rows = Object.entries(result).map(([name, s]) => ({
    contender: name,
    'median ms': ms(s.median),
    'p90 ms': ms(s.p90),
    'x node start': (s.median / node).toFixed(2),
    'CPU ms': ms(s.cpu),
    'CPU x node': (s.cpu / nodeCpu).toFixed(2),
    'node + k× raw bwrap':
      bwrap !== undefined && hasK(name) ? `k = ${((s.median - node) / bwrap).toFixed(1)} (CPU k = ${((s.cpu - nodeCpu) / bwrapCpu).toFixed(1)})` : '',
    'aim ms': aimOf(name) === undefined ? '' : ms(aimOf(name)),
    met: aimOf(name) === undefined ? '' : s.median <= aimOf(name) ? 'yes' : 'no',
  }));
  const notes = [
    `n=${rounds} interleaved after 2 warm-ups, an untimed ${SPACED_CALLS_GAP_MS} ms pause after each call; load average ${load.before.join(', ')} before, ${load.after.join(', ')} after.`,
    'Cleared environment for every contender (PATH; HEADSPACE_HOME for headspace): no NODE_EXTRA_CA_CERTS.',
    "`(through serve)` rows: HEADSPACE_SERVE=auto with the home's server already listening; their CPU is the client's plus the server's per call (`version` is answered by the bin alone in both modes).",
    skipRun === undefined ? '' : `\`run\` skipped: ${skipRun}.`,
  ].filter(Boolean);
  return {
    name: 'cli-startup',
    result: { ...result, load, ...(skipRun === undefined ? {} : { runSkipped: skipRun }) },
    markdown: `${table(rows, ['contender', 'median ms', 'p90 ms', 'x node start', 'CPU ms', 'CPU x node', 'node + k× raw bwrap', 'aim ms', 'met'])}\n\n${notes.join(' ')}`,
  };
}
