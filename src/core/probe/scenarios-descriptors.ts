/**
 * Probes of what a job inherits or can read beyond the bind layout (#10
 * items 1, 7, 12 and 13): descriptors the caller of headspace leaked, kernel
 * files in /proc, a host path exposed through a link, and the Landlock layer.
 *
 * Evidence names descriptors, files and sizes, never what a host file holds.
 */
import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { removePath } from './host-fixtures.js';
import { linesStartingWith, notAttempted, type Scenario } from './probe-types.js';

const DONE = 'probe-done';

/**
 * Lists the job's descriptors; for a directory, walks `..` from it as far as
 * it goes and counts top-level names that the sandbox's own / lacks (a
 * host-only tree became reachable). The listing's own descriptor is closed
 * again by the time it is checked (EBADF) and is skipped.
 */
const FDS_SCRIPT = `import os, stat
names = os.listdir('/proc/self/fd')
sandbox_root = set(os.listdir('/'))
for n in sorted(names, key=int):
    fd = int(n)
    try: st = os.fstat(fd)
    except OSError: continue
    if fd <= 2: continue
    kind = 'directory' if stat.S_ISDIR(st.st_mode) else 'fifo' if stat.S_ISFIFO(st.st_mode) else 'socket' if stat.S_ISSOCK(st.st_mode) else 'file' if stat.S_ISREG(st.st_mode) else 'other'
    reach = ''
    if kind == 'directory':
        try:
            os.fchdir(fd)
            for _ in range(64): os.chdir('..')
            extra = set(os.listdir('.')) - sandbox_root
            reach = ' host-only-entries=%d' % len(extra)
        except OSError as e: reach = ' walk-refused=' + (e.strerror or 'error')
        finally: os.chdir('/')
    print('inherited: fd %d %s%s' % (fd, kind, reach))
print('fds:', ' '.join(sorted(names, key=int)))
print('${DONE}')`;

export interface DescriptorFacts {
  /** Descriptors the engine process itself holds without close-on-exec (what its caller leaked). */
  leakedIntoEngine: number[];
}

/** Descriptors >= 3 of this process that lack close-on-exec (fdinfo flags, octal, O_CLOEXEC = 02000000). */
export function inheritableDescriptors(): number[] {
  const found: number[] = [];
  for (const name of safeReaddir('/proc/self/fd')) {
    const fd = Number(name);
    if (!(fd >= 3)) continue;
    try {
      const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
      if (flags !== undefined && (parseInt(flags, 8) & 0o2000000) === 0) found.push(fd);
    } catch {
      // closed meanwhile
    }
  }
  return found;
}

function safeReaddir(path: string): string[] {
  try {
    return readdirSync(path);
  } catch {
    return [];
  }
}

export const inheritedFds: Scenario<DescriptorFacts> = {
  id: 'inherited-fds',
  title: 'descriptors the caller left open',
  attempts: "list the job's descriptors beyond 0-2 and, through any directory among them, walk '..' towards the host's /",
  requires: ['filesystem'],
  async prepare() {
    return { argv: ['python3', '-c', FDS_SCRIPT], observe: async () => ({ leakedIntoEngine: inheritableDescriptors() }) };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const inherited = linesStartingWith(job.output, 'inherited:');
    if (inherited.length > 0) {
      const reached = inherited.some((l) => /host-only-entries=[1-9]/.test(l));
      return {
        verdict: 'escaped',
        evidence: `the job holds ${inherited.length} descriptor(s) beyond 0-2: ${inherited.join('; ')}${reached ? ' — a directory among them reaches host-only paths' : ''}`,
        lines: inherited.map((l) => `inherited: ${l}`),
      };
    }
    const leaked =
      host.leakedIntoEngine.length > 0
        ? `the engine itself holds ${host.leakedIntoEngine.length} leaked descriptor(s) (${host.leakedIntoEngine.slice(0, 5).join(', ')}); none reached the job`
        : 'the engine held no leaked descriptor this run';
    return { verdict: 'contained', evidence: `the job sees only descriptors 0, 1, 2; ${leaked}` };
  },
};

/** Kernel files a job must not read; directories are listed, files read (bounded), nothing printed but sizes. */
export const PROC_PROBES = [
  '/proc/cmdline',
  '/proc/config.gz',
  '/proc/kallsyms',
  '/proc/kcore',
  '/proc/keys',
  '/proc/timer_list',
  '/proc/sched_debug',
  '/proc/modules',
  '/proc/vmallocinfo',
  '/proc/iomem',
  '/proc/ioports',
  '/proc/slabinfo',
  '/proc/interrupts',
  '/proc/latency_stats',
  '/proc/timer_stats',
  '/proc/acpi',
  '/proc/asound',
  '/proc/scsi',
  '/proc/driver',
  '/proc/fs',
  // other workspaces' loop devices, sizes and live I/O; host-wide pressure; the host's boot id (red team 2, item 3)
  '/proc/partitions',
  '/proc/diskstats',
  '/proc/pressure',
  '/proc/sys/kernel/random/boot_id',
];

const PROC_SCRIPT = `import os, sys
for p in sys.argv[1:]:
    try:
        if os.path.isdir(p):
            print('listed:' if os.listdir(p) else 'empty:', p, len(os.listdir(p)), 'entries')
            continue
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)
        try: data = os.read(fd, 1 << 20)
        finally: os.close(fd)
        extra = ''
        if p.endswith('kallsyms'):
            extra = ' nonzero-addresses=%d' % sum(1 for l in data.split(b'\\n') if l and l.split(b' ')[0].strip(b'0'))
        print('read:' if data else 'empty:', p, len(data), 'bytes' + extra)
    except FileNotFoundError: print('absent:', p)
    except OSError as e: print('refused:', p, e.strerror)
print('${DONE}')`;

export const procMasks: Scenario<Record<string, never>> = {
  id: 'proc-masks',
  title: "the kernel's files in /proc",
  attempts:
    "read /proc/cmdline, kallsyms, config.gz, kcore, keys, timer_list, sched_debug, modules, the other files Docker masks, partitions, diskstats, pressure and the host's boot_id",
  requires: ['filesystem'],
  async prepare() {
    return { argv: ['python3', '-c', PROC_SCRIPT, ...PROC_PROBES], observe: async () => ({}) };
  },
  judge(job) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const readable = [...linesStartingWith(job.output, 'read:'), ...linesStartingWith(job.output, 'listed:')];
    if (readable.length > 0) {
      return { verdict: 'escaped', evidence: `readable inside: ${readable.map((l) => l.split(' ').slice(0, 3).join(' ')).join('; ')}`, lines: readable };
    }
    const refused = linesStartingWith(job.output, 'refused:').length;
    const empty = linesStartingWith(job.output, 'empty:').length;
    const absent = linesStartingWith(job.output, 'absent:').length;
    return { verdict: 'contained', evidence: `${refused} refused, ${empty} empty (masked), ${absent} absent on this kernel; nothing readable` };
  },
};

/**
 * Landlock is the layer below the binds: a job must not write its own /proc
 * entries (the bind layout allows it; the ruleset gives /proc read only), nor
 * signal the sandbox's init, which sits outside its Landlock domain (scoped
 * signals, ABI 6). The job asks the kernel for its Landlock ABI itself: a
 * kernel without Landlock makes this scenario skipped, never contained.
 */
const LANDLOCK_SCRIPT = `import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
abi = libc.syscall(444, None, 0, 1)
print('landlock-abi:', abi if abi > 0 else 0, '' if abi > 0 else errno.errorcode.get(ctypes.get_errno(), '?'))
try:
    with open('/proc/self/comm', 'w') as f: f.write('hsprobe')
    print('reached: write /proc/self/comm')
except OSError as e: print('refused: write /proc/self/comm', e.strerror)
if abi >= 6:
    try:
        os.kill(1, 0); print('reached: signal to the sandbox init (pid 1)')
    except OSError as e: print('refused: signal to pid 1', e.strerror)
print('${DONE}')`;

export const landlockLayer: Scenario<Record<string, never>> = {
  id: 'landlock-layer',
  title: 'the Landlock layer under the binds',
  attempts: "write the job's own /proc/self/comm and signal the sandbox's init: both allowed by the bind layout, refused by Landlock",
  requires: ['filesystem'],
  // It tests Landlock itself: a provider without that layer (docker) is not judged on it.
  requiresLayers: ['landlock'],
  async prepare() {
    return { argv: ['python3', '-c', LANDLOCK_SCRIPT], observe: async () => ({}) };
  },
  judge(job) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const abi = Number(linesStartingWith(job.output, 'landlock-abi:')[0]?.split(' ')[0] ?? '0');
    if (!(abi > 0))
      return {
        verdict: 'skipped',
        evidence: `the kernel offers no Landlock to the job (${linesStartingWith(job.output, 'landlock-abi:')[0] ?? 'no answer'}): the layer cannot be in force`,
      };
    const reached = linesStartingWith(job.output, 'reached:');
    if (reached.length > 0) return { verdict: 'escaped', evidence: `Landlock ABI ${abi} is available but not in force: ${reached.join('; ')}`, lines: reached };
    return { verdict: 'contained', evidence: `Landlock ABI ${abi} in force: ${linesStartingWith(job.output, 'refused:').join('; ')}` };
  },
};

export interface LinkFacts {
  /** create with a host path that is a link to /etc: refused (error code) or accepted. */
  linkToEtc: { refused: string } | { accepted: true };
  /** A link accepted at create, then re-pointed at /etc: refused (where), or whether the job saw /etc's files through it. */
  swapped: { refused: string; at: 'create' | 'run' } | { etcVisible: boolean; exitCode: number | null };
}

/** Prints only whether two files every Linux /etc has are there: never their content. */
const SEE_ETC = 'if [ -f "$1/passwd" ] && [ -f "$1/group" ]; then echo hsprobe-etc-visible; else echo hsprobe-etc-absent; fi';

/**
 * `--allow-host-path` through a link (#10 item 7): checked at create, not by
 * a job. The host side asks for two side workspaces (ProbeHost.trySideWorkspace):
 * one exposing a link to /etc (must be refused at create), one exposing a
 * link to a plain directory that is re-pointed at /etc between create and
 * run (the run must be refused). The links live in /var/tmp: /tmp is the
 * sandbox's own, so a host path there is refused whatever it resolves to.
 */
export const hostPathThroughLink: Scenario<LinkFacts> = {
  id: 'host-path-through-link',
  title: 'a host path exposed through a link',
  attempts: 'create a workspace exposing a link to /etc, and one exposing a link re-pointed at /etc after create',
  requires: ['filesystem'],
  async prepare(host) {
    const base = await mkdtemp(join('/var/tmp', 'hsprobe-link-'));
    host.defer(() => removePath(base));
    await chmod(base, 0o755);
    const plain = join(base, 'plain');
    await mkdir(plain, { mode: 0o755 });
    const toEtc = join(base, 'to-etc');
    await symlink('/etc', toEtc);
    const swapped = join(base, 'swapped');
    await symlink(plain, swapped);

    const linkToEtc = await host.trySideWorkspace([toEtc], async () => undefined, ['true']);
    const repointed = await host.trySideWorkspace(
      [swapped],
      async () => {
        await rm(swapped);
        await symlink('/etc', swapped);
      },
      ['sh', '-c', SEE_ETC, 'sh', swapped],
    );
    const facts: LinkFacts = {
      linkToEtc: 'refused' in linkToEtc ? { refused: linkToEtc.refused } : { accepted: true },
      swapped:
        'refused' in repointed
          ? { refused: repointed.refused, at: repointed.at }
          : { etcVisible: repointed.output.includes('hsprobe-etc-visible'), exitCode: repointed.exitCode },
    };
    return { argv: ['python3', '-c', `print('${DONE}')`], observe: async () => facts };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if ('refused' in host.swapped && host.swapped.at === 'create') {
      return {
        verdict: 'skipped',
        evidence: `a link to a plain directory was refused at create too (${host.swapped.refused}), so re-pointing it could not be tried`,
      };
    }
    const escapes: string[] = [];
    if ('accepted' in host.linkToEtc) escapes.push('a workspace exposing a link to /etc was created');
    if ('etcVisible' in host.swapped) {
      escapes.push(
        host.swapped.etcVisible
          ? "a job saw the host's /etc through a link re-pointed after create"
          : `a job ran with a link re-pointed after create (exit ${host.swapped.exitCode ?? 'by a signal'})`,
      );
    }
    if (escapes.length > 0) return { verdict: 'escaped', evidence: escapes.join('; ') };
    const etc = 'refused' in host.linkToEtc ? host.linkToEtc.refused : '';
    const swap = 'refused' in host.swapped ? host.swapped.refused : '';
    return {
      verdict: 'contained',
      evidence: `a link to /etc was refused at create (${etc}); a link re-pointed at /etc after create was refused at run (${swap})`,
    };
  },
};
