/**
 * Budget probes: processes left behind after the job, a fork bomb, and a
 * memory hog. Each attempt is bounded on its own (the bomb forks at most a
 * few hundred processes, the hog stops at four times the memory budget), so
 * even a provider that enforced nothing could not hurt the host much.
 */
import { formatBytes } from '../policy/effective-policy.js';
import { findMarkedProcesses, hostCanSpawn, killProcesses, type MarkedProcess } from './host-fixtures.js';
import { linesStartingWith, notAttempted, type Scenario, type SideWorkspaceOutcome } from './probe-types.js';

const DONE = 'probe-done';

/**
 * Besides three detached sleeps, CHAINS re-forking chains in sessions of their
 * own (#19): each link forks the next and exits at once, so a sweep that reads
 * the processes and then kills what it read is often one fork behind. Each
 * chain ends itself after CHAIN_LINKS links (about 20 s at 10 ms and a shell
 * start a link), so a provider that lets it escape is not left running it.
 */
const CHAINS = 6;
const CHAIN_LINKS = 1500;
const CHAIN_SECONDS = 20;
const DETACH_SCRIPT = `export HSPROBE_LINK=0
export HSPROBE_F='HSPROBE_LINK=$((HSPROBE_LINK + 1)) sh -c "$HSPROBE_F2" & exit 0'
export HSPROBE_F2='[ "$HSPROBE_LINK" -lt ${CHAIN_LINKS} ] || exit 0; sleep 0.01; sh -c "$HSPROBE_F"'
for chain in $(seq ${CHAINS}); do setsid sh -c "$HSPROBE_F" & done
setsid sleep 60 &
nohup sleep 61 >/dev/null 2>&1 &
python3 -c 'import os
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0: os.execvp("sleep", ["sleep", "62"])
    os._exit(0)'
echo "started: setsid, nohup, double fork, ${CHAINS} re-forking setsid chains"
echo ${DONE}`;

export interface LeftoverFacts {
  /** Host processes still carrying the job's marker after the job ended. */
  remaining: MarkedProcess[];
  /** The provider found (and ended) something of the workspace still running. */
  providerFound: boolean;
  providerEmpty: boolean;
}

export const processOutlivesJob: Scenario<LeftoverFacts> = {
  id: 'process-outlives-job',
  title: 'a process left running after the job',
  attempts:
    'start `setsid sleep`, `nohup sleep`, a double-forked daemon and six `setsid` chains that re-fork every 10 ms (each ends itself after about 20 s), then exit; the host looks for them in its /proc over a second and asks the provider',
  requires: ['pids'],
  async prepare(host) {
    const marker = host.token();
    // Whatever the scans find is killed here, again until three scans in a row find nothing (a chain re-forks
    // past one scan and kill), so a leak never outlives the probe; the chains end themselves in any case.
    host.defer(async () => {
      const until = Date.now() + (CHAIN_SECONDS + 5) * 1000;
      for (let quiet = 0; quiet < 3 && Date.now() < until;) {
        const found = await findMarkedProcesses('HSPROBE_MARK', marker);
        quiet = found.length === 0 ? quiet + 1 : 0;
        killProcesses(found.map((p) => p.pid));
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    return {
      argv: ['sh', '-c', DETACH_SCRIPT],
      env: { HSPROBE_MARK: marker },
      observe: async () => {
        // Several scans over a second: one scan can fall between a chain's links (each lives ~10 ms).
        const seen = new Map<number, MarkedProcess>();
        for (let scan = 0; scan < 6; scan++) {
          if (scan > 0) await new Promise((r) => setTimeout(r, 200));
          for (const p of await findMarkedProcesses('HSPROBE_MARK', marker)) seen.set(p.pid, p);
        }
        const remaining = [...seen.values()];
        const reaped = await host.reapLeftovers();
        return { remaining, providerFound: reaped.found, providerEmpty: reaped.empty };
      },
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if (host.remaining.length > 0)
      return {
        verdict: 'escaped',
        evidence: `${host.remaining.length} process(es) outlived the job: ${host.remaining
          .slice(0, 6)
          .map((p) => `pid ${p.pid} ${p.command}`)
          .join(', ')}${host.remaining.length > 6 ? ', …' : ''}`,
      };
    if (host.providerFound)
      return {
        verdict: 'escaped',
        evidence: `the workspace still held processes after the job (the provider ended them${host.providerEmpty ? '' : ', but not all'})`,
      };
    return {
      verdict: 'contained',
      evidence:
        'three detached processes and six re-forking chains were started; none remained on the host over a second after the job, and the workspace held nothing',
    };
  },
};

/**
 * A bounded bomb: every process forks up to 3 children, 5 levels deep (at
 * most 364), for 1.5 s. No process exits before 2.0 s, so none forks into a
 * slot a sibling freed: the count is of processes alive at the same time.
 */
const BOMB_SCRIPT = `import os, time
start = time.monotonic()
r, w = os.pipe(); top = os.getpid(); depth = made = refused = 0
while time.monotonic() < start + 1.5:
    if depth >= 5 or made >= 3: time.sleep(0.02); continue
    try: pid = os.fork()
    except OSError: refused += 1; time.sleep(0.01); continue
    if pid == 0: depth += 1; made = refused = 0
    else: made += 1
while time.monotonic() < start + 2.0: time.sleep(0.02)
if os.getpid() != top:
    os.write(w, b'%d %d\\n' % (made, refused)); os._exit(0)
os.close(w); data = b''
while True:
    chunk = os.read(r, 65536)
    if not chunk: break
    data += chunk
rows = [l.split() for l in data.decode().splitlines()]
print('bomb:', len(rows) + 1, made + sum(int(a) for a, _ in rows), refused + sum(int(b) for _, b in rows))
print('${DONE}')`;

export interface HostHealth {
  pidsLimit: number;
  memoryBytes: number;
  /** The host could still start a process after the attempt. */
  hostCanSpawn: boolean;
}

export const forkBomb: Scenario<HostHealth> = {
  id: 'fork-bomb',
  title: 'a fork bomb',
  attempts: 'fork a tree of processes (at most 364) for 1.5 s, all alive together until 2 s; the pids budget must refuse forks past it',
  requires: ['pids'],
  async prepare(host) {
    return {
      argv: ['python3', '-c', BOMB_SCRIPT],
      observe: async () => ({ pidsLimit: host.budget.pidsLimit, memoryBytes: host.budget.memoryBytes, hostCanSpawn: hostCanSpawn() }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const [processes, forks, refused] = (linesStartingWith(job.output, 'bomb:')[0] ?? '').split(' ').map(Number);
    if (processes === undefined || forks === undefined || refused === undefined || [processes, forks, refused].some(Number.isNaN)) {
      return { verdict: 'skipped', evidence: 'the bomb did not report its counts' };
    }
    if (!host.hostCanSpawn) return { verdict: 'escaped', evidence: 'the host could not start a process after the bomb' };
    if (processes > host.pidsLimit) return { verdict: 'escaped', evidence: `${processes} processes ran at once, past the pids budget of ${host.pidsLimit}` };
    if (refused === 0) return { verdict: 'escaped', evidence: `no fork was refused (${processes} processes): the pids budget never held the bomb` };
    if (job.status !== 'success') return { verdict: 'escaped', evidence: `the bomb was held but the job ended ${job.status}, not success` };
    return {
      verdict: 'contained',
      evidence: `held at ${processes} processes (budget ${host.pidsLimit}); ${refused} forks refused; the job ended success; the host still starts processes`,
    };
  },
};

const HOG_SCRIPT = `import sys
limit, chunk, held, n = int(sys.argv[1]), 8 << 20, [], 0
while n < limit:
    held.append(b'\\xff' * chunk); n += chunk
    print('allocated:', n >> 20, flush=True)
print('${DONE}: allocated', n >> 20, 'MiB without being stopped')`;

export const memoryHog: Scenario<HostHealth> = {
  id: 'memory-hog',
  title: 'a memory hog',
  attempts: 'touch memory in 8 MiB steps up to four times the memory budget; the kernel must kill it (resource_exhausted)',
  requires: ['memory'],
  async prepare(host) {
    return {
      argv: ['python3', '-c', HOG_SCRIPT, String(host.budget.memoryBytes * 4)],
      observe: async () => ({ pidsLimit: host.budget.pidsLimit, memoryBytes: host.budget.memoryBytes, hostCanSpawn: hostCanSpawn() }),
    };
  },
  judge(job, host) {
    const unrun = notAttempted(job, '');
    if (unrun) return unrun;
    const steps = linesStartingWith(job.output, 'allocated:');
    const reached = Number(steps[steps.length - 1] ?? 0) * 1024 * 1024;
    if (steps.length === 0) return { verdict: 'skipped', evidence: `the hog never reported an allocation (${job.status})` };
    if (job.output.includes(`${DONE}:`))
      return { verdict: 'escaped', evidence: `allocated ${formatBytes(reached)} against a ${formatBytes(host.memoryBytes)} budget without being stopped` };
    if (!host.hostCanSpawn) return { verdict: 'escaped', evidence: 'the host could not start a process after the hog' };
    if (job.status !== 'resource_exhausted')
      return { verdict: 'escaped', evidence: `the hog ended ${job.status} (exit ${job.exitCode ?? 'none'}), not resource_exhausted` };
    return {
      verdict: 'contained',
      evidence: `killed by the kernel at about ${formatBytes(reached)} of a ${formatBytes(host.memoryBytes)} budget: resource_exhausted; the host still starts processes`,
    };
  },
};

const RESISTING = 'probe-resisting';
/** The side workspace's wall clock: the job must be ended soon after it, whatever it does to what ends it. */
const RESIST_WALL_CLOCK_SECONDS = 3;
/** Past its wall clock by this much, the job outlived it: the kill's own slack and a container restart fit well within. */
const RESIST_OVERRUN_MS = 30_000;
/**
 * Ignores TERM and freezes (SIGSTOP) every process whose command line names the docker provider's stop script, every
 * 2 ms: that script runs inside the container as the job's own uid, so the job may signal it (red team, session 19).
 * Only those: freezing every process of its uid could catch an exec's `runc init` and hang the engine itself.
 */
const RESIST_SCRIPT = `import os, signal, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
me = os.getpid()
print('${RESISTING}', flush=True)
while True:
    for p in os.listdir('/proc'):
        if not p.isdigit() or int(p) == me: continue
        try:
            if b'headspace-stop' in open('/proc/%s/cmdline' % p, 'rb').read(): os.kill(int(p), signal.SIGSTOP)
        except OSError: pass
    time.sleep(0.002)`;

export interface ResistFacts {
  outcome: SideWorkspaceOutcome;
  /** How long the side workspace's run took, from its start to its result. */
  ranMs: number;
}

export const stopResister: Scenario<ResistFacts> = {
  id: 'stop-resister',
  title: 'a job that freezes whatever ends it',
  attempts: `ignore TERM and freeze (SIGSTOP) every process that would end it, every 2 ms, in a workspace with a ${RESIST_WALL_CLOCK_SECONDS} s wall clock; it must still be ended soon after its wall clock, as a timeout, not as a lost workspace`,
  requires: ['wall_clock'],
  async prepare(host) {
    return {
      argv: ['echo', DONE],
      observe: async () => {
        const started = Date.now();
        const outcome = await host.trySideWorkspace([], async () => undefined, ['python3', '-c', RESIST_SCRIPT], {
          wallClockSeconds: RESIST_WALL_CLOCK_SECONDS,
        });
        return { outcome, ranMs: Date.now() - started };
      },
    };
  },
  judge(job, host) {
    // The probe workspace's own job (the echo) did not run: nothing was tried.
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const { outcome, ranMs } = host;
    if ('refused' in outcome) {
      if (outcome.at === 'create') return { verdict: 'skipped', evidence: `the workspace for the attempt could not be made: ${outcome.refused}` };
      return { verdict: 'escaped', evidence: `the run did not end the job as a timeout but failed: ${outcome.refused}` };
    }
    if (outcome.exitCode === 127 || !outcome.output.includes(RESISTING))
      return { verdict: 'skipped', evidence: 'the attempt could not run (python3 missing?)' };
    const past = ranMs - RESIST_WALL_CLOCK_SECONDS * 1000;
    if (past > RESIST_OVERRUN_MS)
      return { verdict: 'escaped', evidence: `the job outlived its ${RESIST_WALL_CLOCK_SECONDS} s wall clock by ${Math.round(past / 1000)} s` };
    return {
      verdict: 'contained',
      evidence: `the job froze whatever it saw coming to end it; its ${RESIST_WALL_CLOCK_SECONDS} s wall clock ended it all the same (the run took ${(ranMs / 1000).toFixed(1)} s)`,
    };
  },
};
