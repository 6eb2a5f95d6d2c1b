/**
 * Isolation probes: the host environment, the host's loopback, an external
 * address, container-engine sockets, host paths shown in /proc, and
 * privilege (capabilities, user namespaces, mount, ptrace, the host uid).
 *
 * Network attempts only ever connect: to a listener the probe itself opened
 * on 127.0.0.1, or to 1.1.1.1:53 / 8.8.8.8:53 with a 2 s timeout, which must
 * fail because the sandbox's network namespace has no route. Nothing is sent.
 */
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { findMarkedProcesses, openListener, pollUntilAborted, removePath, type MarkedProcess } from './host-fixtures.js';
import { linesStartingWith, notAttempted, type Scenario } from './probe-types.js';

const DONE = 'probe-done';

const ENV_SCRIPT = `import glob
for p in ['/proc/self/environ'] + sorted(glob.glob('/proc/[0-9]*/environ')):
    try: print('environ:', p, open(p, 'rb').read().replace(b'\\0', b' ').decode('utf8', 'replace'))
    except OSError as e: print('unreadable:', p, e.strerror)
print('${DONE}')`;

export interface EnvFacts {
  value: string;
}

export const hostEnv: Scenario<EnvFacts> = {
  id: 'host-env',
  title: 'a host environment canary',
  attempts: "look for a random variable set in the engine's own process, in every environment visible inside",
  requires: ['filesystem'],
  async prepare(host) {
    const name = `HEADSPACE_PROBE_CANARY_${host.token().slice(0, 8).toUpperCase()}`;
    const value = `hsprobe-env-${host.token()}`;
    process.env[name] = value;
    host.defer(() => delete process.env[name]);
    return { argv: ['python3', '-c', ENV_SCRIPT], observe: async () => ({ value }) };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if (job.output.includes(host.value)) return { verdict: 'escaped', evidence: "the engine's environment canary is visible inside" };
    return { verdict: 'contained', evidence: `${linesStartingWith(job.output, 'environ:').length} environments read inside; the canary is in none` };
  },
};

const CONNECT_SCRIPT = `import socket, sys
for target in sys.argv[1:]:
    host, port = target.rsplit(':', 1)
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect((host, int(port))); print('connected:', target, s.recv(64).decode('utf8', 'replace').strip())
    except OSError as e:
        print('refused:', target, e.strerror or type(e).__name__)
    finally: s.close()
print('${DONE}')`;

export interface ListenerFacts {
  accepted: number;
  greeting: string;
}

export const loopback: Scenario<ListenerFacts> = {
  id: 'loopback',
  title: "the host's loopback",
  attempts: 'connect to a listener the probe opened on the host at 127.0.0.1 on a random port',
  requires: ['network'],
  async prepare(host) {
    const greeting = `hsprobe-hello-${host.token()}`;
    const listener = await openListener({ tcp: true }, greeting);
    host.defer(() => listener.close());
    return {
      argv: ['python3', '-c', CONNECT_SCRIPT, `127.0.0.1:${listener.address}`, `localhost:${listener.address}`],
      observe: async () => ({ accepted: listener.accepted(), greeting }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if (host.accepted > 0 || job.output.includes(host.greeting))
      return { verdict: 'escaped', evidence: `the host listener accepted ${host.accepted} connection(s) from inside` };
    return { verdict: 'contained', evidence: `host listener saw no connection; inside: ${linesStartingWith(job.output, 'refused:').join('; ')}` };
  },
};

export const externalNetwork: Scenario<Record<string, never>> = {
  id: 'external-network',
  title: 'an external address',
  attempts: 'connect (2 s timeout, nothing sent) to 1.1.1.1:53 and 8.8.8.8:53',
  requires: ['network'],
  async prepare() {
    return { argv: ['python3', '-c', CONNECT_SCRIPT, '1.1.1.1:53', '8.8.8.8:53'], observe: async () => ({}) };
  },
  judge(job) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const connected = linesStartingWith(job.output, 'connected:');
    if (connected.length > 0) return { verdict: 'escaped', evidence: `connected to ${connected.map((l) => l.split(' ')[0]).join(', ')}` };
    return { verdict: 'contained', evidence: linesStartingWith(job.output, 'refused:').join('; ') || 'every connect failed' };
  },
};

const UNIX_SCRIPT = `import socket, sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX); s.settimeout(2)
    try:
        s.connect('\\0' + p[1:] if p.startswith('@') else p); print('connected:', p)
    except OSError as e:
        print('refused:', p, e.strerror or type(e).__name__)
    finally: s.close()
print('${DONE}')`;

export const ENGINE_SOCKETS = [
  '/var/run/docker.sock',
  '/run/docker.sock',
  '/run/containerd/containerd.sock',
  '/var/run/containerd/containerd.sock',
  '/run/podman/podman.sock',
];

export interface SocketFacts {
  /** Engine sockets that exist on this host (the others cannot prove anything by being unreachable). */
  presentOnHost: string[];
  /** Connections the probe's own planted sockets accepted. */
  plantedAccepted: number;
  planted: string[];
}

export const containerSockets: Scenario<SocketFacts> = {
  id: 'container-sockets',
  title: 'the container-engine sockets',
  attempts: 'connect to docker/containerd/podman sockets, to a socket the probe plants in /run, and to an abstract one',
  requires: ['filesystem', 'network'],
  async prepare(host) {
    const tag = host.token().slice(0, 12);
    const inRun = `/run/hsprobe-${tag}.sock`;
    const path = existsSync('/run') ? inRun : join(tmpdir(), `hsprobe-${tag}.sock`);
    host.defer(() => removePath(path));
    const planted = await openListener({ path }, 'hsprobe').catch(() => openListener({ path: join(tmpdir(), `hsprobe-${tag}.sock`) }, 'hsprobe'));
    host.defer(() => planted.close());
    host.defer(() => removePath(join(tmpdir(), `hsprobe-${tag}.sock`)));
    const abstract = await openListener({ path: `\0hsprobe-${tag}` }, 'hsprobe');
    host.defer(() => abstract.close());
    const plantedNames = [String(planted.address), `@hsprobe-${tag}`];
    return {
      argv: ['python3', '-c', UNIX_SCRIPT, ...ENGINE_SOCKETS, ...plantedNames],
      observe: async () => ({
        presentOnHost: ENGINE_SOCKETS.filter((p) => existsSync(p)),
        plantedAccepted: planted.accepted() + abstract.accepted(),
        planted: plantedNames,
      }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const connected = linesStartingWith(job.output, 'connected:');
    if (connected.length > 0 || host.plantedAccepted > 0)
      return { verdict: 'escaped', evidence: `reached from inside: ${connected.join(', ') || `${host.plantedAccepted} planted-socket connection(s)`}` };
    const present = host.presentOnHost.length ? `present on the host: ${host.presentOnHost.join(', ')}` : 'no engine socket exists on this host';
    return {
      verdict: 'contained',
      evidence: `${linesStartingWith(job.output, 'refused:').length} sockets unreachable, incl. the planted ${host.planted.join(' and ')} (${present})`,
    };
  },
};

const PROC_SCRIPT = `import glob
def dump(label, path):
    try: data = open(path, 'rb').read()
    except OSError: return
    for line in data.replace(b'\\0', b' ').decode('utf8', 'replace').splitlines(): print(label + ':', line)
dump('mountinfo', '/proc/self/mountinfo')
dump('cgroup', '/proc/self/cgroup')
for p in sorted(glob.glob('/proc/[0-9]*')):
    dump('cmdline ' + p, p + '/cmdline'); dump('environ ' + p, p + '/environ')
print('${DONE}')`;

/** The native provider's default mount base parent; core names it as a plain path, it imports nothing of providers/. */
export const HEADSPACE_RUNTIME_DIR = '/run/headspace-native';

export interface ProcFacts {
  /** Host paths that must not show up inside, with a name for each. */
  needles: Array<{ name: string; path: string }>;
}

export const procHostPaths: Scenario<ProcFacts> = {
  id: 'proc-host-paths',
  title: 'host paths visible in /proc',
  attempts:
    "search /proc/self/mountinfo, /proc/self/cgroup and every visible cmdline and environ for HEADSPACE_HOME, the host home directory or headspace's runtime directory",
  requires: ['filesystem'],
  async prepare(host) {
    const needles: ProcFacts['needles'] = [{ name: 'HEADSPACE_HOME', path: host.home }];
    const real = await realpath(host.home).catch(() => host.home);
    if (real !== host.home) needles.push({ name: 'HEADSPACE_HOME (real path)', path: real });
    const userHome = homedir();
    if (userHome.length > 1) needles.push({ name: 'the host home directory', path: userHome });
    // Where the native provider keeps its mount base (images, generated files, the exec shim's copy) as root:
    // a bind from it named `/run/headspace-native/<tag>/runtime/<workspace id>/passwd` in mountinfo (red team 2, item 3).
    needles.push({ name: "headspace's runtime directory", path: HEADSPACE_RUNTIME_DIR });
    return { argv: ['python3', '-c', PROC_SCRIPT], observe: async () => ({ needles }) };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    for (const line of job.output.split('\n')) {
      const needle = host.needles.find((n) => containsPath(line, n.path));
      if (needle) {
        const where = line.slice(0, line.indexOf(':'));
        const shown = job.output
          .split('\n')
          .filter((l) => host.needles.some((n) => containsPath(l, n.path)))
          .slice(0, 6);
        return {
          verdict: 'escaped',
          evidence: `${needle.name} (${needle.path}) is visible inside, in ${where === 'mountinfo' ? '/proc/self/mountinfo' : where}`,
          lines: shown,
        };
      }
    }
    return {
      verdict: 'contained',
      evidence: `none of ${host.needles.map((n) => n.path).join(', ')} in ${job.output.split('\n').length - 1} lines of mountinfo, cgroup, cmdline and environ`,
    };
  },
};

/** `path` occurs in `text` as a whole path (followed by `/`, whitespace or the end), not as a prefix of a longer name. */
export function containsPath(text: string, path: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(path, from);
    if (at < 0) return false;
    const next = text[at + path.length];
    if (next === undefined || next === '/' || /\s/.test(next)) return true;
    from = at + 1;
  }
}

const PRIVILEGE_SCRIPT = `import ctypes, errno, os, subprocess, time
st = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)
for k in ('Uid', 'CapEff', 'CapPrm', 'CapBnd', 'NoNewPrivs'): print('status:', k, st.get(k, '?').split()[0] if k != 'Uid' else st.get(k, '?').strip())
libc = ctypes.CDLL(None, use_errno=True)
def attempt(name, fn):
    r = fn(); e = ctypes.get_errno()
    print('allowed:' if r == 0 else 'refused:', name, '' if r == 0 else errno.errorcode.get(e, e))
os.makedirs('/tmp/m', exist_ok=True)
child = subprocess.Popen(['sleep', '5'])
attempt('ptrace(ATTACH) own child', lambda: libc.ptrace(16, child.pid, None, None))
child.kill()
attempt('mount(2) tmpfs', lambda: libc.mount(b'none', b'/tmp/m', b'tmpfs', 0, None))
attempt('unshare(CLONE_NEWUSER)', lambda: libc.unshare(0x10000000))
attempt('setuid(0)', lambda: libc.setuid(0))
for name, argv in (('unshare -U true', ['unshare', '-U', 'true']), ('mount -t tmpfs', ['mount', '-t', 'tmpfs', 'none', '/tmp/m'])):
    r = subprocess.run(argv, capture_output=True)
    print('allowed:' if r.returncode == 0 else 'refused:', name, 'exit', r.returncode)
print('${DONE}', flush=True)
time.sleep(0.8)`;

export interface PrivilegeFacts {
  /** Processes of the job the host saw while it ran (inside a nested pid namespace, carrying the marker). */
  seen: MarkedProcess[];
}

export const privilege: Scenario<PrivilegeFacts> = {
  id: 'privilege',
  title: 'privilege',
  attempts:
    "read CapEff, then try ptrace, mount, a nested user namespace (syscall and `unshare -U`), setuid(0) and `mount`; the host reads the job's uid from its own /proc",
  requires: ['filesystem'],
  async prepare(host) {
    const marker = host.token();
    const seen = new Map<number, MarkedProcess>();
    return {
      argv: ['python3', '-c', PRIVILEGE_SCRIPT],
      env: { HSPROBE_MARK: marker },
      watch: (signal) =>
        pollUntilAborted(signal, 40, async () => {
          for (const p of await findMarkedProcesses('HSPROBE_MARK', marker)) if (p.nested) seen.set(p.pid, p);
        }),
      observe: async () => ({ seen: [...seen.values()] }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const allowed = linesStartingWith(job.output, 'allowed:');
    if (allowed.length > 0) return { verdict: 'escaped', evidence: `allowed inside: ${allowed.join('; ')}`, lines: allowed.map((l) => `allowed: ${l}`) };
    const capEff = linesStartingWith(job.output, 'status: CapEff')[0] ?? '';
    if (!/^0+$/.test(capEff)) return { verdict: 'escaped', evidence: `CapEff inside is ${capEff || 'unknown'}, not 0` };
    const rootOnHost = host.seen.filter((p) => p.uids.includes(0));
    if (rootOnHost.length > 0)
      return { verdict: 'escaped', evidence: `the job ran as host uid 0 (${rootOnHost.map((p) => `pid ${p.pid} ${p.command}`).join(', ')})` };
    if (host.seen.length === 0)
      return { verdict: 'skipped', evidence: "the host did not catch the job's processes in its /proc, so their host uid is unknown" };
    const uids = [...new Set(host.seen.flatMap((p) => p.uids))].join(',');
    return { verdict: 'contained', evidence: `CapEff 0; host uid ${uids}; refused: ${linesStartingWith(job.output, 'refused:').join('; ')}` };
  },
};
