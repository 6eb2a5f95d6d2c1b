// Per-job overhead side by side with the peers, in one interleave
// (A B C … A B C …) after warm-ups, so every ratio is same-run:
//   plain spawn (the floor) · headspace library (engine.run, native) ·
//   headspace CLI (`headspace run`) · sandbox-runtime library (initialize
//   once, wrap + spawn per job) · sandbox-runtime CLI (`srt`) ·
//   headspace library on the docker provider (an exec per job in the
//   workspace's container) · `docker run --rm --network none` with memory,
//   pids and cpu limits.
// Commands: `/bin/true` and `/usr/bin/python3 -c pass` (the absolute path:
// `python3` on this host's PATH is a pyenv shim, a bash script that would
// dominate every contender but headspace's, whose PATH has no pyenv).
// A peer that cannot run here is skipped with its reason in the table.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { interleave, ms, table, SPACED_CALLS_GAP_MS } from './lib/stats.mjs';
import { cliEnv, loadAverage, nativeNotReady, runChild, startDocker, startSandboxRuntimeCli, startSandboxRuntimeLibrary } from './lib/peers.mjs';
import { startDockerProviderLibrary } from './lib/docker-engine.mjs';

const COMMANDS = [
  { key: 'true', label: '`/bin/true`', argv: ['/bin/true'] },
  { key: 'python', label: '`/usr/bin/python3 -c pass`', argv: ['/usr/bin/python3', '-c', 'pass'] },
];
const PLAIN = 'plain spawn';
const SRT_LIB = 'sandbox-runtime library';
const DOCKER = 'docker run --rm';

export async function benchPeerOverhead({ repo, rounds = Number(process.env.HS_BENCH_ROUNDS ?? 20), warmup = 3 }) {
  const skips = {};
  const closers = [];
  const contenders = [{ name: PLAIN, run: (argv) => runChild(argv[0], argv.slice(1)) }];
  const load = { before: loadAverage() };
  const peers = {};
  try {
    const notReady = await nativeNotReady(repo);
    if (notReady) {
      skips['headspace library'] = notReady;
      skips['headspace CLI'] = notReady;
    } else {
      const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
      const libHome = mkdtempSync(join(tmpdir(), 'hs-bench-peer-lib-'));
      const engine = api.createHeadspace({ home: libHome, defaultProvider: 'native' });
      const libWs = (await engine.create({ purpose: 'peer-overhead bench' })).provenance.workspace_id;
      closers.push(async () => {
        await engine.destroy({ workspaceId: libWs, force: true }).catch(() => undefined);
        engine.close();
        rmSync(libHome, { recursive: true, force: true });
      });
      contenders.push({
        name: 'headspace library',
        run: async (argv) => {
          const r = await engine.run({ workspaceId: libWs, argv });
          if (r.status !== 'success') throw new Error(`engine.run: ${r.status}: ${r.outcome_summary}`);
          // One macrotask turn inside the timing, as in native-overhead: work the
          // provider defers past a job (spawning the next job's standby launcher)
          // is charged to headspace, not to whichever contender runs next.
          await new Promise((resolve) => setImmediate(resolve));
        },
      });
      const cliHome = mkdtempSync(join(tmpdir(), 'hs-bench-peer-cli-'));
      const cliEngine = api.createHeadspace({ home: cliHome, defaultProvider: 'native' });
      const cliWs = (await cliEngine.create({ purpose: 'peer-overhead bench (CLI)' })).provenance.workspace_id;
      cliEngine.close();
      closers.push(async () => {
        const e = api.createHeadspace({ home: cliHome, defaultProvider: 'native' });
        await e.destroy({ workspaceId: cliWs, force: true }).catch(() => undefined);
        e.close();
        rmSync(cliHome, { recursive: true, force: true });
      });
      const env = cliEnv({ HEADSPACE_HOME: cliHome });
      const bin = join(repo, 'bin', 'headspace');
      contenders.push({ name: 'headspace CLI', run: (argv) => runChild(bin, ['run', cliWs, ...argv], { env }) });
    }

    for (const [name, start] of [
      [SRT_LIB, () => startSandboxRuntimeLibrary(repo)],
      ['sandbox-runtime CLI (srt)', () => startSandboxRuntimeCli(repo)],
      // Before the docker peer: it starts (or finds) the engine and sets DOCKER_HOST, which the peer then reuses.
      ['headspace library (docker provider)', () => startDockerProviderLibrary(repo).then((p) => (p.skipped ? p : { ...p, run: (argv) => p.run(0, argv) }))],
      [DOCKER, () => startDocker()],
    ]) {
      process.stderr.write(`bench: peer-overhead: starting ${name}…\n`);
      const peer = await start();
      if (peer.skipped) {
        skips[name] = peer.skipped;
        process.stderr.write(`bench: peer-overhead: ${name} skipped: ${peer.skipped}\n`);
        continue;
      }
      peers[name] = {
        version: peer.version,
        ...(peer.initializeMs !== undefined ? { initializeMs: peer.initializeMs } : {}),
        ...(peer.daemon ? { daemon: peer.daemon } : {}),
      };
      closers.push(() => peer.close());
      contenders.push({ name, run: (argv) => peer.run(argv) });
    }

    const tables = {};
    for (const command of COMMANDS) {
      process.stderr.write(`bench: peer-overhead: ${command.label}, ${contenders.length} contenders × ${rounds} rounds…\n`);
      tables[command.key] = await interleave(
        contenders.map((c) => ({ name: c.name, run: () => c.run(command.argv) })),
        { rounds, warmup, gapMs: SPACED_CALLS_GAP_MS },
      );
    }
    load.after = loadAverage();
    const result = { rounds, warmup, load, peers, skips, tables };
    return { name: 'peer-overhead', result, markdown: render(result) };
  } finally {
    for (const close of closers.reverse()) await close().catch((e) => process.stderr.write(`bench: peer-overhead: clean-up: ${e.message}\n`));
  }
}

function render({ rounds, warmup, load, peers, skips, tables }) {
  const sections = [];
  for (const command of COMMANDS) {
    const result = tables[command.key];
    const floor = result[PLAIN].median;
    const srt = result[SRT_LIB]?.median;
    const docker = result[DOCKER]?.median;
    const rows = Object.entries(result).map(([name, s]) => ({
      contender: name,
      'median ms': ms(s.median),
      'p90 ms': ms(s.p90),
      'x plain spawn': (s.median / floor).toFixed(1),
      'x sandbox-runtime lib': srt ? (s.median / srt).toFixed(2) : 'n/a',
      'x docker run': docker ? (s.median / docker).toFixed(3) : 'n/a',
    }));
    for (const [name, reason] of Object.entries(skips)) rows.push({ contender: name, 'median ms': 'skipped', 'p90 ms': reason });
    sections.push(
      `${command.label}, n=${rounds} interleaved after ${warmup} warm-ups, an untimed ${SPACED_CALLS_GAP_MS} ms pause after each call\n\n${table(rows, ['contender', 'median ms', 'p90 ms', 'x plain spawn', 'x sandbox-runtime lib', 'x docker run'])}`,
    );
  }
  const notes = [`Load average (1, 5, 15 min): ${load.before.join(', ')} before, ${load.after.join(', ')} after.`];
  for (const [name, p] of Object.entries(peers)) {
    notes.push(
      `${name}: version ${p.version}${p.initializeMs !== undefined ? `; one-time initialize() ${ms(p.initializeMs)} ms, not in the per-job figures` : ''}${p.daemon ? `; daemon ${p.daemon}` : ''}.`,
    );
  }
  notes.push(
    'Policies differ and are not equal in strength: headspace runs each job as a dedicated non-root uid under bwrap with its own seccomp filter, cap-drop and cgroup v1 memory/pids/cpu limits (512 MiB, 128 pids, 1 cpu), and records the job (store, log, result package). sandbox-runtime runs bwrap as the calling user (root here) with `/` read-only, a network proxy and no cgroups. docker applies the same memory/pids/cpu limits through runc and a fresh container per job. Plain spawn isolates nothing.',
    'CLI contenders (headspace, srt) run without NODE_EXTRA_CA_CERTS, a host setting that adds ~40 ms to every node start.',
  );
  return `${sections.join('\n\n')}\n\n${notes.join('\n')}`;
}
