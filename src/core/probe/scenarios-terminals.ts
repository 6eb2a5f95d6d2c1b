/**
 * Probes of what a job gets from the terminal session that started
 * headspace and from the host's terminal machinery (red team 2, items 1
 * and 2): the caller's resource limits and umask, and pseudo-terminals,
 * whose kernel pool (kernel.pty.max) every sandbox's devpts shares.
 *
 * Evidence names limits, counts and errors, never anything of the host's.
 */
import { linesStartingWith, notAttempted, type Scenario } from './probe-types.js';

const DONE = 'probe-done';

/**
 * Allocates at most PTY_ATTEMPTS ptys, through /dev/ptmx, /dev/pts/ptmx and
 * openpty(), and frees them at once: enough to show the pool is reachable,
 * never enough to starve anyone (the red team took 3,071 to exhaust it).
 */
const PTY_ATTEMPTS = 6;

const PTY_SCRIPT = `import os
held = []
def attempt(name, fn):
    try:
        fds = fn()
        held.extend(fds if isinstance(fds, tuple) else (fds,))
        print('allocated:', name)
    except OSError as e:
        print('refused:', name, e.strerror)
for i in range(${PTY_ATTEMPTS} // 3):
    attempt('open /dev/ptmx', lambda: os.open('/dev/ptmx', os.O_RDWR | os.O_NOCTTY))
    attempt('open /dev/pts/ptmx', lambda: os.open('/dev/pts/ptmx', os.O_RDWR | os.O_NOCTTY))
    attempt('openpty()', os.openpty)
for fd in held: os.close(fd)
print('${DONE}')`;

export const ptyPool: Scenario<Record<string, never>> = {
  id: 'pty-pool',
  title: "the host's shared pseudo-terminal pool",
  attempts: `allocate up to ${PTY_ATTEMPTS} pseudo-terminals (/dev/ptmx, /dev/pts/ptmx, openpty()): every sandbox's devpts draws on one kernel.pty.max pool, so one workspace could take every pty of the others`,
  requires: ['filesystem'],
  async prepare() {
    return { argv: ['python3', '-c', PTY_SCRIPT], observe: async () => ({}) };
  },
  judge(job) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const allocated = linesStartingWith(job.output, 'allocated:');
    if (allocated.length > 0) {
      const ways = [...new Set(allocated)];
      return {
        verdict: 'escaped',
        evidence: `the job allocated ${allocated.length} pseudo-terminal(s) from the host-wide pool (${ways.join(', ')}); nothing stops it taking all of them`,
        lines: ways.map((w) => `allocated: ${w}`),
      };
    }
    const refused = [...new Set(linesStartingWith(job.output, 'refused:'))];
    return { verdict: 'contained', evidence: `no pseudo-terminal could be allocated: ${refused.join('; ')}` };
  },
};

/** Limits the job reports: name soft hard, -1 meaning unlimited; then its umask in octal. */
const LIMITS_SCRIPT = `import os, resource
for name in ('CORE', 'NOFILE', 'STACK', 'MEMLOCK', 'NPROC', 'RTPRIO', 'SIGPENDING', 'MSGQUEUE'):
    soft, hard = resource.getrlimit(getattr(resource, 'RLIMIT_' + name))
    print('limit:', name, soft, hard)
mask = os.umask(0); os.umask(mask)
print('umask: %03o' % mask)
print('${DONE}')`;

/**
 * The most a job may hold per process; more shows the caller's value went
 * through (a systemd service's LimitNOFILE=1048576 let one workspace fill
 * the host's open-file table; root's hard limit here is 20000).
 */
export const LIMIT_CEILINGS: Readonly<Record<string, number>> = {
  CORE: 0,
  NOFILE: 4096,
  MEMLOCK: 64 * 1024,
  RTPRIO: 0,
};
/** Limits that must be finite (unlimited means nobody set them for the job). */
const MUST_BE_FINITE = ['STACK', 'NPROC', 'SIGPENDING', 'MSGQUEUE'];
/** Bits the job's umask must hold: files a job makes are not writable by group or others. */
const UMASK_BITS = 0o022;

export interface LimitFacts {
  /** The engine's umask while the job started, as the probe set it (the caller's, for the job to inherit or not). */
  callerUmask: number;
}

export const inheritedLimits: Scenario<LimitFacts> = {
  id: 'inherited-limits',
  title: "the caller's resource limits and umask",
  attempts:
    "start a job while the engine runs with umask 002 and its own rlimits, and read the job's core, open-file, stack, locked-memory, process, realtime, signal and message-queue limits and its umask",
  requires: ['filesystem'],
  async prepare(host) {
    // The engine's umask is what a job inherits unless the provider sets its own; 002 (not 000) so
    // nothing the engine writes meanwhile becomes world-writable. Restored after the scenario.
    const callerUmask = 0o002;
    const before = process.umask(callerUmask);
    host.defer(() => process.umask(before));
    return { argv: ['python3', '-c', LIMITS_SCRIPT], observe: async () => ({ callerUmask }) };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const problems: string[] = [];
    const seen: string[] = [];
    for (const line of linesStartingWith(job.output, 'limit:')) {
      const [name = '?', softText = '', hardText = ''] = line.split(' ');
      const soft = Number(softText);
      const hard = Number(hardText);
      const show = (n: number) => (n < 0 ? 'unlimited' : String(n));
      seen.push(`${name} ${show(soft)}/${show(hard)}`);
      const ceiling = LIMIT_CEILINGS[name];
      if (ceiling !== undefined && (hard < 0 || hard > ceiling || soft < 0 || soft > ceiling))
        problems.push(`${name} ${show(soft)}/${show(hard)} (at most ${ceiling})`);
      if (MUST_BE_FINITE.includes(name) && hard < 0) problems.push(`${name} unlimited`);
    }
    const umaskText = linesStartingWith(job.output, 'umask:')[0];
    if (seen.length === 0 || umaskText === undefined) return { verdict: 'skipped', evidence: 'the job did not report its limits and umask' };
    const umask = parseInt(umaskText, 8);
    if ((umask & UMASK_BITS) !== UMASK_BITS)
      problems.push(
        `umask ${umaskText} (the caller's was ${host.callerUmask.toString(8).padStart(3, '0')}): files the job makes are writable by group or others`,
      );
    if (problems.length > 0) return { verdict: 'escaped', evidence: `the job runs with limits nobody set for it: ${problems.join('; ')}`, lines: problems };
    return { verdict: 'contained', evidence: `the job's own limits (soft/hard): ${seen.join(', ')}; umask ${umaskText}` };
  },
};
