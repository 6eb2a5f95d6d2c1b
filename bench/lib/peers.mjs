// The peers headspace is measured against, each behind the same small shape:
// `await start…()` returns `{ run(argv), close() }` when the peer can run here,
// or `{ skipped: reason }` when it cannot — never a silent absence.
//   - Anthropic's sandbox-runtime as a library (closed network, one
//     initialize(), then wrap + spawn per job) and as its CLI (`srt`);
//   - `docker run --rm --network none` with memory, pids and cpu limits, on a
//     daemon that is already reachable or, failing that, one started here with
//     its data and exec roots in a scratch dir and no networking set-up, and
//     stopped by its pid afterwards;
//   - headspace itself (library and CLI, native provider) and a plain spawn.
// Only loopback and local unix sockets are used; nothing reaches a network.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, rmdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The same numbers as headspace's default budget, so the docker peer is budgeted alike. */
export const PEER_BUDGET = { memoryBytes: 512 * 1024 * 1024, pidsLimit: 128, cpus: 1 };

export const loadAverage = () => loadavg().map((x) => Number(x.toFixed(2)));

/** Runs a command to completion, draining its output; rejects on a non-zero exit. */
export function runChild(cmd, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (c) => {
      if (stderr.length < 4000) stderr += c;
    });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ').slice(0, 200)} exited ${code ?? signal}: ${stderr.slice(0, 600)}`)),
    );
  });
}

/** An environment for node-based CLIs without NODE_EXTRA_CA_CERTS, a host setting that adds ~40 ms to every node start. */
export function cliEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

const shellQuote = (s) => (/^[A-Za-z0-9_./=:-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** Why the native provider cannot run here, or undefined when it can. */
export async function nativeNotReady(repo) {
  if (process.platform !== 'linux') return `the native provider needs Linux (found ${process.platform})`;
  if (!existsSync(join(repo, 'dist', 'api', 'index.js'))) return 'dist/ is missing: run npx tsc -p tsconfig.json first';
  const api = await import(pathToFileURL(join(repo, 'dist', 'api', 'index.js')).href);
  const home = mkdtempSync(join(tmpdir(), 'hs-bench-probe-'));
  // A provider is not reachable through the public engine (#11): build one that holds it, from the registry.
  const { PROVIDERS } = await import(pathToFileURL(join(repo, 'dist', 'providers', 'registry.js')).href);
  const engine = api.createEngine({ home, providers: PROVIDERS, defaultProvider: 'native', version: 'bench' });
  try {
    const probe = await (await engine.provider('native')).probe();
    if (!probe.ready)
      return `the native provider is not ready: ${probe.checks
        .filter((c) => !c.ok)
        .map((c) => `${c.name}: ${c.detail}`)
        .join('; ')}`;
    return undefined;
  } finally {
    engine.close();
    rmSync(home, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- sandbox-runtime

const SRT_DIR = (repo) => join(repo, 'node_modules', '@anthropic-ai', 'sandbox-runtime');

/**
 * Anthropic's sandbox-runtime as a library. Its SandboxManager is a module
 * singleton: initialize() once (it starts its filtering proxies), then
 * wrapWithSandboxArgv() + spawn per job. The config is closed: no domain
 * allowed (every connection through its proxy is refused), writes only to a
 * scratch dir. TMPDIR points at that scratch dir while the peer lives (the
 * runtime puts its proxy sockets there), and is restored on close.
 */
export async function startSandboxRuntimeLibrary(repo) {
  const why = sandboxRuntimeMissing(repo);
  if (why) return { skipped: why };
  const scratch = mkdtempSync(join(tmpdir(), 'hs-bench-srt-lib-'));
  const previousTmp = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  let SandboxManager;
  try {
    ({ SandboxManager } = await import(pathToFileURL(join(SRT_DIR(repo), 'dist', 'index.js')).href));
    const deps = SandboxManager.checkDependencies();
    if (deps.errors.length) throw new Error(`its dependency check failed: ${deps.errors.join('; ')}`);
    const t0 = process.hrtime.bigint();
    await SandboxManager.initialize(srtConfig(scratch));
    const initializeMs = Number(process.hrtime.bigint() - t0) / 1e6;
    return {
      version: srtVersion(repo),
      initializeMs,
      async run(argv) {
        const wrapped = await SandboxManager.wrapWithSandboxArgv(argv.map(shellQuote).join(' '));
        try {
          await runChild(wrapped.argv[0], wrapped.argv.slice(1), { env: wrapped.env, cwd: scratch });
        } finally {
          SandboxManager.cleanupAfterCommand();
        }
      },
      async close() {
        await SandboxManager.reset().catch(() => undefined);
        restoreTmp(previousTmp);
        rmSync(scratch, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await SandboxManager?.reset().catch(() => undefined);
    restoreTmp(previousTmp);
    rmSync(scratch, { recursive: true, force: true });
    return { skipped: `sandbox-runtime library could not start: ${String(error.message ?? error).slice(0, 300)}` };
  }
}

/**
 * The `srt` CLI, one process per job, with the same closed settings file.
 * Each process starts node, parses its config and starts its proxies: it is
 * measured because an agent that shells out pays exactly that.
 */
export async function startSandboxRuntimeCli(repo) {
  const why = sandboxRuntimeMissing(repo);
  if (why) return { skipped: why };
  const scratch = mkdtempSync(join(tmpdir(), 'hs-bench-srt-cli-'));
  const settings = join(scratch, 'settings.json');
  writeFileSync(settings, JSON.stringify(srtConfig(scratch)));
  const cli = join(SRT_DIR(repo), 'dist', 'cli.js');
  const env = cliEnv({ TMPDIR: scratch });
  const peer = {
    version: srtVersion(repo),
    run: (argv) => runChild(process.execPath, [cli, '-s', settings, '--', ...argv], { env, cwd: scratch }),
    close: async () => rmSync(scratch, { recursive: true, force: true }),
  };
  try {
    await peer.run(['/bin/true']);
    return peer;
  } catch (error) {
    await peer.close();
    return { skipped: `sandbox-runtime CLI failed its first run: ${String(error.message ?? error).slice(0, 300)}` };
  }
}

function srtConfig(scratch) {
  return { network: { allowedDomains: [], deniedDomains: [] }, filesystem: { denyRead: [], allowWrite: [scratch], denyWrite: [] } };
}

function sandboxRuntimeMissing(repo) {
  if (process.platform !== 'linux') return `needs Linux (found ${process.platform})`;
  if (!existsSync(join(SRT_DIR(repo), 'package.json')))
    return '@anthropic-ai/sandbox-runtime is not installed: run scripts/setup-bench.sh (npm install of the pinned devDependency)';
  for (const tool of ['bwrap', 'socat', 'rg']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `sandbox-runtime needs \`${tool}\` on PATH (apt: ${tool === 'rg' ? 'ripgrep' : tool === 'bwrap' ? 'bubblewrap' : tool}); run scripts/setup-bench.sh as root`;
  }
  return undefined;
}

const srtVersion = (repo) => JSON.parse(readFileSync(join(SRT_DIR(repo), 'package.json'), 'utf8')).version;

function restoreTmp(previous) {
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
}

// ---------------------------------------------------------------- docker

/**
 * `docker run --rm --network none` with headspace's default memory, pids and
 * cpu limits, on a base image made here with `docker import` (no registry is
 * reachable): busybox-static for `/bin/true` and `sh`, plus the host's
 * /usr/bin/python3 with its libraries and standard library.
 *
 * Uses a daemon that already answers (DOCKER_HOST or /var/run/docker.sock);
 * otherwise starts one as root with data and exec roots in a scratch dir,
 * no bridge, no iptables and its own cgroup parent, and on close stops it by
 * its pid, removes its cgroups and its scratch dir.
 */
export async function startDocker() {
  if (process.platform !== 'linux') return { skipped: `needs Linux (found ${process.platform})` };
  const client = ['/usr/bin/docker', '/usr/local/bin/docker'].find((p) => existsSync(p)) ?? which('docker');
  if (!client) return { skipped: 'no docker client: run scripts/setup-bench.sh as root (apt: docker.io)' };
  const busybox = ['/bin/busybox', '/usr/bin/busybox'].find((p) => existsSync(p));
  if (!busybox) return { skipped: 'busybox-static is needed to build the base image: run scripts/setup-bench.sh as root' };
  const scratch = mkdtempSync(join(tmpdir(), 'hs-bench-docker-'));
  let daemon;
  let host;
  const cleanup = async () => {
    if (daemon) await stopDaemon(daemon);
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    const existing = process.env.DOCKER_HOST ?? (existsSync('/var/run/docker.sock') ? 'unix:///var/run/docker.sock' : undefined);
    if (existing && spawnSync(client, ['-H', existing, 'info'], { stdio: 'ignore', timeout: 10_000 }).status === 0) {
      host = existing;
    } else {
      const dockerd = ['/usr/sbin/dockerd', '/usr/bin/dockerd'].find((p) => existsSync(p)) ?? which('dockerd');
      if (!dockerd) throw new Skip('no Docker daemon is reachable and dockerd is not installed: run scripts/setup-bench.sh as root (apt: docker.io)');
      if (process.getuid?.() !== 0) throw new Skip('no Docker daemon is reachable and starting one needs root');
      daemon = await startDaemon(dockerd, client, scratch);
      host = daemon.host;
    }
    const docker = (args, options = {}) => runChild(client, ['-H', host, ...args], options);
    const image = `headspace-bench-base:${process.pid}`;
    const tarball = buildRootfsTarball(scratch, busybox);
    await docker(['import', tarball, image]);
    rmSync(join(scratch, 'rootfs'), { recursive: true, force: true });
    const limits = [
      '--memory',
      String(PEER_BUDGET.memoryBytes),
      '--memory-swap',
      String(PEER_BUDGET.memoryBytes),
      '--pids-limit',
      String(PEER_BUDGET.pidsLimit),
      '--cpus',
      String(PEER_BUDGET.cpus),
    ];
    const version = spawnSync(client, ['-H', host, 'version', '--format', '{{.Server.Version}}'], { encoding: 'utf8' }).stdout.trim();
    return {
      version,
      daemon: daemon ? 'started for the bench (scratch data root, no bridge, no iptables)' : `already running at ${host}`,
      run: (argv) => docker(['run', '--rm', '--network', 'none', ...limits, image, ...argv]),
      async close() {
        await docker(['rmi', '-f', image]).catch(() => undefined);
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup().catch(() => undefined);
    if (error instanceof Skip) return { skipped: error.message };
    return { skipped: `docker could not be set up: ${String(error.message ?? error).slice(0, 400)}` };
  }
}

class Skip extends Error {}

function which(name) {
  const r = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

async function startDaemon(dockerd, client, scratch) {
  const cgroupParent = `/headspace-bench-docker-${process.pid}`;
  const sock = join(scratch, 'docker.sock');
  const host = `unix://${sock}`;
  const log = join(scratch, 'dockerd.log');
  const args = [
    '--data-root',
    join(scratch, 'data'),
    '--exec-root',
    join(scratch, 'exec'),
    '--pidfile',
    join(scratch, 'dockerd.pid'),
    '-H',
    host,
    '--bridge',
    'none',
    '--iptables=false',
    '--ip6tables=false',
    '--ip-masq=false',
    '--cgroup-parent',
    cgroupParent,
  ];
  const { openSync } = await import('node:fs');
  const out = openSync(log, 'a');
  const child = spawn(dockerd, args, { stdio: ['ignore', out, out], detached: true });
  child.unref();
  const daemon = { pid: child.pid, host, cgroupParent, scratch, child, exited: false };
  child.on('exit', () => (daemon.exited = true));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (daemon.exited) break;
    if (existsSync(sock) && spawnSync(client, ['-H', host, 'info'], { stdio: 'ignore', timeout: 5000 }).status === 0) return daemon;
    await new Promise((r) => setTimeout(r, 200));
  }
  const tail = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').slice(-3).join(' | ') : '';
  await stopDaemon(daemon);
  throw new Skip(`dockerd did not answer within 30 s: ${tail.slice(0, 400)}`);
}

/** SIGTERM by pid, SIGKILL after 20 s; then remove the cgroups and mounts it left. */
async function stopDaemon(daemon) {
  const alive = () => {
    try {
      process.kill(daemon.pid, 0);
      return !daemon.exited;
    } catch {
      return false;
    }
  };
  // dockerd's managed containerd is its child; note its pid to wait for it too.
  let containerd;
  try {
    containerd = Number(readFileSync(join(daemon.scratch, 'exec', 'containerd', 'containerd.pid'), 'utf8'));
  } catch {
    containerd = undefined;
  }
  if (alive()) process.kill(daemon.pid, 'SIGTERM');
  const deadline = Date.now() + 20_000;
  while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(daemon.pid, 'SIGKILL');
  if (containerd) {
    const until = Date.now() + 10_000;
    const running = () => {
      try {
        process.kill(containerd, 0);
        return readFileSync(`/proc/${containerd}/cmdline`, 'utf8').includes(daemon.scratch);
      } catch {
        return false;
      }
    };
    while (running() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (running()) process.kill(containerd, 'SIGKILL');
  }
  // Lazy-unmount anything still mounted under the scratch dir (overlay layers, netns files).
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m && m.startsWith(daemon.scratch));
  for (const m of mounts.reverse()) spawnSync('umount', ['-l', m]);
  for (const root of cgroupRoots()) removeTree(join(root, daemon.cgroupParent));
}

function cgroupRoots() {
  const base = '/sys/fs/cgroup';
  if (!existsSync(base)) return [];
  if (existsSync(join(base, 'cgroup.controllers'))) return [base];
  return readdirSync(base)
    .map((d) => join(base, d))
    .filter((d) => existsSync(join(d, 'cgroup.procs')));
}

function removeTree(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removeTree(join(dir, entry.name));
  try {
    rmdirSync(dir);
  } catch {
    // busy or already gone: nothing of ours can still be running after dockerd stopped
  }
}

/** busybox (sh, true) + /usr/bin/python3 with its libraries and standard library, as a tarball. */
function buildRootfsTarball(scratch, busybox) {
  const root = join(scratch, 'rootfs');
  for (const d of ['bin', 'usr/bin', 'tmp', 'etc', 'proc', 'sys', 'dev']) mkdirSync(join(root, d), { recursive: true });
  chmodSync(join(root, 'tmp'), 0o1777);
  copyFileSync(busybox, join(root, 'bin', 'busybox'));
  chmodSync(join(root, 'bin', 'busybox'), 0o755);
  for (const name of ['sh', 'true']) symlinkSync('busybox', join(root, 'bin', name));
  const python = ['/usr/bin/python3'].find((p) => existsSync(p));
  if (python) {
    const real = spawnSync('readlink', ['-f', python], { encoding: 'utf8' }).stdout.trim();
    copyFileSync(real, join(root, 'usr', 'bin', 'python3'));
    chmodSync(join(root, 'usr', 'bin', 'python3'), 0o755);
    const ldd = spawnSync('ldd', [real], { encoding: 'utf8' }).stdout;
    for (const lib of ldd.matchAll(/(\/\S+\.so[.\d]*)/g)) {
      const dest = join(root, lib[1]);
      mkdirSync(dirname(dest), { recursive: true });
      copyFileSync(lib[1], dest);
    }
    const version = spawnSync(python, ['-c', 'import sys; print("python%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' }).stdout.trim();
    mkdirSync(join(root, 'usr', 'lib'), { recursive: true });
    const skip = ['test', 'idlelib', 'tkinter', 'ensurepip', 'lib2to3'].map((d) => `--exclude=${version}/${d}`);
    const tar = spawnSync('sh', ['-c', `tar -C /usr/lib ${skip.join(' ')} -cf - ${version} | tar -C "${join(root, 'usr', 'lib')}" -xf -`]);
    if (tar.status !== 0) throw new Error(`copying the python standard library failed: ${tar.stderr}`);
  }
  const tarball = join(scratch, 'rootfs.tar');
  const r = spawnSync('tar', ['-C', root, '-cf', tarball, '.']);
  if (r.status !== 0) throw new Error(`tar of the rootfs failed: ${r.stderr}`);
  return tarball;
}
