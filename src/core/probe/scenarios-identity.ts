/**
 * Identity probes: what one workspace's job can take from ANOTHER
 * workspace through the host uid they run as (#10 item 4).
 *
 * The kernel charges inotify instances, POSIX message-queue bytes and pipe
 * buffer pages to the kernel uid, across user namespaces. When every
 * workspace's jobs ran as one uid, a job in one workspace holding all 128
 * inotify instances made `inotify_init1` fail with EMFILE in every other
 * workspace, nine default-sized queues made `mq_open` fail, and 64 pipes
 * grown to 1 MiB shrank every other workspace's new pipes. Here a hog job in
 * a sibling workspace takes all three and holds them while the probe's own
 * job asks for one of each.
 */
import { linesStartingWith, notAttempted, type JobFacts, type Scenario } from './probe-types.js';

const DONE = 'probe-done';
export const HOLDING = 'holding:';

/** Shared by both jobs: ctypes access to inotify_init1 and mq_open (in libc since glibc 2.34, librt before). */
const PRELUDE = `import ctypes, errno, fcntl, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
try: mq_open = libc.mq_open
except AttributeError: mq_open = ctypes.CDLL('librt.so.1', use_errno=True).mq_open
mq_open.restype = ctypes.c_int
F_SETPIPE_SZ, F_GETPIPE_SZ = 1031, 1032
def err(): return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
def mq(name): return mq_open(name.encode(), os.O_CREAT | os.O_RDWR, ctypes.c_uint(0o600), None)
print('id:', os.getuid(), flush=True)
`;

/** The hog: takes every inotify instance, message queue and 1 MiB pipe the uid may have, says so, and holds them. */
export const HOG_SCRIPT = `${PRELUDE}held = {'inotify': 0, 'mqueue': 0, 'pipes': 0}
why = {}
while held['inotify'] < 4096:
    if libc.inotify_init1(0) < 0: why['inotify'] = err(); break
    held['inotify'] += 1
while held['mqueue'] < 4096:
    if mq('/hsprobe-hog-%d' % held['mqueue']) < 0: why['mqueue'] = err(); break
    held['mqueue'] += 1
pipes = []
while held['pipes'] < 4096:
    try: r, w = os.pipe()
    except OSError as e: why['pipes'] = errno.errorcode.get(e.errno, str(e.errno)); break
    pipes.append((r, w))
    try: fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
    except OSError as e: why['pipes'] = errno.errorcode.get(e.errno, str(e.errno)); break
    held['pipes'] += 1
print('${HOLDING}', ' '.join('%s=%d/%s' % (k, held[k], why.get(k, 'cap')) for k in held), flush=True)
time.sleep(15)
`;

/** The probe's own job: one of each, after the hog holds its share. */
export const ASK_SCRIPT = `${PRELUDE}fd = libc.inotify_init1(0)
print('inotify:', 'ok' if fd >= 0 else err())
q = mq('/hsprobe-ask')
print('mqueue:', 'ok' if q >= 0 else err())
r, w = os.pipe()
print('pipe:', fcntl.fcntl(w, F_GETPIPE_SZ))
print('${DONE}')
`;

/** A new pipe's capacity when its owner is under the per-user soft limit (16 pages of 4 KiB). */
export const DEFAULT_PIPE_BYTES = 65536;

export interface IdentityFacts {
  /** The sibling's hog job, once it has ended. */
  hog: JobFacts;
  /** Did the hog say it holds its share before the probe's job ran? */
  holding: boolean;
}

export const perUserLimits: Scenario<IdentityFacts> = {
  id: 'per-user-limits',
  title: "another workspace's per-user kernel limits",
  attempts:
    'hold every inotify instance, POSIX message queue and 1 MiB pipe the host uid may have in a sibling workspace, while this workspace asks for one of each',
  requires: ['filesystem'],
  async prepare(host) {
    const sibling = await host.startSibling(['python3', '-c', HOG_SCRIPT]);
    const holding = await sibling.waitForLine(HOLDING, 5000);
    return { argv: ['python3', '-c', ASK_SCRIPT], observe: async () => ({ hog: await sibling.finish(), holding }) };
  },
  judge(job, host) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const held = linesStartingWith(host.hog.output, HOLDING)[0];
    if (!host.holding || held === undefined)
      return {
        verdict: 'skipped',
        evidence: `the sibling's hog did not report holding its resources (${host.hog.status}, exit ${host.hog.exitCode ?? 'none'})`,
      };
    const ownUid = linesStartingWith(job.output, 'id:')[0];
    const hogUid = linesStartingWith(host.hog.output, 'id:')[0];
    const starved: string[] = [];
    for (const kind of ['inotify', 'mqueue'] as const) {
      const got = linesStartingWith(job.output, `${kind}:`)[0];
      // EACCES is no starvation: the Landlock layer refuses POSIX message queues to every job alike (their
      // filesystem is the IPC namespace's internal mount, which no rule covers); EMFILE/ENOSPC are the limit.
      if (got !== undefined && got !== 'ok' && got !== 'EACCES') starved.push(`${kind} refused (${got})`);
    }
    const pipe = Number(linesStartingWith(job.output, 'pipe:')[0]);
    if (Number.isFinite(pipe) && pipe < DEFAULT_PIPE_BYTES) starved.push(`a new pipe holds ${pipe} bytes, not ${DEFAULT_PIPE_BYTES}`);
    const lines = [...job.output.split('\n').filter((l) => /^(id|inotify|mqueue|pipe):/.test(l)), `sibling ${HOLDING} ${held}`];
    if (starved.length > 0) return { verdict: 'escaped', evidence: `a sibling workspace holding ${held} starved this one: ${starved.join('; ')}`, lines };
    if (ownUid !== undefined && ownUid === hogUid)
      return { verdict: 'escaped', evidence: `both workspaces' jobs run as host uid ${ownUid}, so they share every per-user kernel limit`, lines };
    return {
      verdict: 'contained',
      evidence: `a sibling (uid ${hogUid ?? '?'}) held ${held}; this workspace (uid ${ownUid ?? '?'}) still got an inotify instance, a message queue and a ${pipe}-byte pipe`,
    };
  },
};
