/**
 * Kernel-surface probes (#10 items 2 and 3): address families a job must
 * not open, and syscalls a default-deny filter must refuse.
 *
 * vsock is not network-namespaced: on a VM it is the hypervisor's agents'
 * port space. The socket probe therefore only ever calls socket() and, if
 * that succeeds, bind() with VMADDR_CID_ANY on a random high port that no
 * number on the host's /proc/cmdline names (the workplace's own agents
 * listen there). It never connects, and never addresses CID 2.
 */
import { readFile } from 'node:fs/promises';
import { linesStartingWith, notAttempted, type JobFacts, type Judgement, type Scenario } from './probe-types.js';

const DONE = 'probe-done';

/** What the socket rules answer (syscall-socket-rules.ts): any other errno came from the kernel, past the filter. */
const SOCKET_FILTER_ERRNOS = new Set(['EAFNOSUPPORT', 'EPROTONOSUPPORT', 'ESOCKTNOSUPPORT', 'EOPNOTSUPP']);

/**
 * name, family, type, protocol: each must fail at socket(), with the
 * filter's own answer. The second list asks allowed families for types and
 * protocols real programs never use: SOCK_PACKET through AF_INET (the
 * kernel makes that a packet socket), raw inet, MPTCP, UDP-Lite, SCTP and
 * ICMP ping sockets. An errno the filter never gives (EPERM from a missing
 * CAP_NET_RAW, EACCES from ping_group_range) means the call reached the
 * kernel's socket code. SCTP is not built into every kernel; where it is
 * not, the kernel's own EPROTONOSUPPORT looks like the filter's.
 */
const SOCKET_SCRIPT = `import errno, os, random, socket
avoid_env = os.environ.get('HSPROBE_AVOID_PORTS')
avoid = {int(p) for p in (avoid_env or '').split(',') if p}
R, D, S, Q = socket.SOCK_RAW, socket.SOCK_DGRAM, socket.SOCK_STREAM, socket.SOCK_SEQPACKET
attempts = [('AF_VSOCK', 40, S, 0), ('AF_PACKET', 17, R, 0x0300), ('AF_PACKET dgram', 17, D, 0x0300), ('AF_ALG', 38, Q, 0),
    ('AF_KEY', 15, R, 2), ('AF_BLUETOOTH', 31, R, 1), ('AF_CAN', 29, R, 1), ('AF_XDP', 44, R, 0), ('AF_TIPC', 30, 5, 0),
    ('AF_RDS', 21, Q, 0), ('AF_LLC', 26, D, 0), ('AF_PPPOX', 24, S, 0), ('AF_KCM', 41, D, 0), ('AF_QIPCRTR', 42, D, 0),
    ('AF_SMC', 43, S, 0), ('AF_MCTP', 45, D, 0), ('AF_RXRPC', 33, D, 2), ('AF_PHONET', 35, D, 0), ('AF_IEEE802154', 36, R, 0),
    ('AF_NETLINK NETLINK_AUDIT', 16, R, 9), ('AF_NETLINK NETLINK_KOBJECT_UEVENT', 16, D, 15), ('AF_NETLINK NETLINK_NETFILTER', 16, R, 12),
    ('AF_NETLINK NETLINK_SOCK_DIAG', 16, R, 4), ('AF_NETLINK NETLINK_GENERIC', 16, R, 16), ('AF_NETLINK NETLINK_XFRM', 16, R, 6),
    ('AF_INET SOCK_PACKET ETH_P_ALL', 2, 10, 0x0300), ('AF_INET SOCK_RAW ICMP', 2, R, 1), ('AF_INET6 SOCK_RAW ICMPV6', 10, R, 58),
    ('AF_INET MPTCP', 2, S, 262), ('AF_INET6 MPTCP', 10, S | socket.SOCK_CLOEXEC, 262), ('AF_INET UDPLITE', 2, D, 136), ('AF_INET6 UDPLITE', 10, D, 136),
    ('AF_INET SCTP', 2, S, 132), ('AF_INET SCTP seqpacket', 2, Q, 132), ('AF_INET ICMP ping', 2, D, 1), ('AF_INET6 ICMPV6 ping', 10, D, 58)]
for name, family, kind, proto in attempts:
    try: s = socket.socket(family, kind, proto)
    except OSError as e:
        print('refused:', name, '(' + errno.errorcode.get(e.errno, str(e.errno)) + ')'); continue
    print('created:', name)
    # bind only when the host said which ports to avoid (it could read its /proc/cmdline).
    if family == 40 and avoid_env is not None:
        port = random.choice([p for p in range(49152, 65536) if p not in avoid])
        try: s.bind((0xFFFFFFFF, port)); print('created:', name, 'bound to port', port, 'in the host VM vsock space')
        except OSError as e: print('note:', name, 'bind refused', os.strerror(e.errno))
    s.close()
NB = socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC
for name, family, kind, proto in (('AF_UNIX', 1, S, 0), ('AF_UNIX seqpacket', 1, Q | NB, 0), ('AF_INET', 2, S, 0), ('AF_INET TCP nonblocking', 2, S | NB, 6),
        ('AF_INET UDP', 2, D, 17), ('AF_INET6', 10, S, 0), ('AF_INET6 UDP', 10, D | NB, 0), ('route netlink', 16, R | NB, 0)):
    try: socket.socket(family, kind, proto).close(); print('works:', name)
    except OSError as e: print('broken:', name, os.strerror(e.errno))
print('${DONE}')`;

export const socketFamilies: Scenario<Record<string, never>> = {
  id: 'socket-families',
  title: 'socket address families',
  attempts:
    'socket() for AF_VSOCK (then bind() on a random high port with VMADDR_CID_ANY, never connect), AF_PACKET, AF_ALG, AF_KEY, AF_BLUETOOTH, AF_CAN, AF_XDP and other families, netlink with protocols other than NETLINK_ROUTE, and inet sockets of other types and protocols (SOCK_PACKET through AF_INET, raw, MPTCP, UDP-Lite, SCTP, ICMP ping)',
  requires: ['network'],
  async prepare() {
    // The host's agents listen on vsock ports named on the kernel command line: the job never binds those.
    // Unreadable: the variable stays unset and the job does not bind at all.
    const cmdline = await readFile('/proc/cmdline', 'utf8').catch(() => undefined);
    const env = cmdline === undefined ? undefined : { HSPROBE_AVOID_PORTS: [...new Set(cmdline.match(/\d+/g) ?? [])].join(',') };
    return { argv: ['python3', '-c', SOCKET_SCRIPT], ...(env ? { env } : {}), observe: async () => ({}) };
  },
  judge(job) {
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    const created = linesStartingWith(job.output, 'created:');
    const refused = linesStartingWith(job.output, 'refused:').map((line) => ({ line, errno: /\(([A-Z0-9]+)\)$/.exec(line)?.[1] ?? '' }));
    // A refusal the filter never answers came from the kernel's socket code: the filter let the call through.
    const reached = refused.filter((r) => !SOCKET_FILTER_ERRNOS.has(r.errno));
    if (created.length > 0 || reached.length > 0) {
      const parts = [
        ...(created.length > 0 ? [`the job opened: ${created.join('; ')}`] : []),
        ...(reached.length > 0 ? [`reached the kernel: ${reached.map((r) => r.line).join('; ')}`] : []),
      ];
      return { verdict: 'escaped', evidence: parts.join('; '), lines: [...created.map((l) => `created: ${l}`), ...reached.map((r) => `refused: ${r.line}`)] };
    }
    if (refused.length === 0) return { verdict: 'skipped', evidence: 'the job reported no socket attempt' };
    const works = linesStartingWith(job.output, 'works:');
    const broken = linesStartingWith(job.output, 'broken:');
    const lost = broken.length > 0 ? `; broken: ${broken.join(', ')}` : '';
    return {
      verdict: 'contained',
      evidence: `${refused.length} sockets refused by the filter (${refused
        .slice(0, 3)
        .map((r) => r.line)
        .join('; ')}, ...); still usable: ${works.join(', ') || 'none'}${lost}`,
    };
  },
};

/**
 * Each call is made through ctypes `syscall()` with the number for the
 * job's architecture. `ok` means the call succeeded; `err NAME` gives the
 * errno. A call that fails with any errno but the filter's own (EPERM,
 * ENOSYS, EAFNOSUPPORT) reached the kernel: the filter let it through.
 */
const SYSCALL_SCRIPT = `import ctypes, errno, os, platform, pty, fcntl, struct, time
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
X86 = platform.machine() == 'x86_64'
NR = dict(modify_ldt=154 if X86 else None, kcmp=312 if X86 else 272, fanotify_init=300 if X86 else 262, personality=135 if X86 else 92,
          ioctl=16 if X86 else 29, io_setup=206 if X86 else 0, memfd_secret=447, statmount=457, listmount=458, lsm_list_modules=461, mseal=462, beyond=471,
          memfd_create=319 if X86 else 279, mmap=9 if X86 else 222, sync=162 if X86 else 81)
def call(name, nr, *args):
    if nr is None: print('skip:', name, 'not on', platform.machine()); return None
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    e = ctypes.get_errno()
    print('call:', name, 'ok' if r >= 0 else 'err', r if r >= 0 else errno.errorcode.get(e, str(e)), flush=True)
    return r
buf = ctypes.create_string_buffer(4096)
ids = (ctypes.c_uint64 * 64)()
call('modify_ldt(read)', NR['modify_ldt'], 0, buf, 16)
call('kcmp(self, self, KCMP_VM)', NR['kcmp'], os.getpid(), os.getpid(), 1, 0, 0)
call('fanotify_init(FAN_REPORT_FID)', NR['fanotify_init'], 0x200, os.O_RDONLY)
call('memfd_secret', NR['memfd_secret'], 0)
aio = ctypes.c_ulong(0)
call('io_setup(1) (fs.aio-max-nr is host-wide)', NR['io_setup'], 1, ctypes.byref(aio))
req = struct.pack('=IIQQ', 24, 0, 0xFFFFFFFFFFFFFFFF, 0)
n = call('listmount(LSMT_ROOT)', NR['listmount'], req, ids, 64, 0)
req = struct.pack('=IIQQ', 24, 0, ids[0] if n and n > 0 else 0xFFFFFFFFFFFFFFFF, 1)
call('statmount', NR['statmount'], req, buf, 4096, 0)
size = ctypes.c_uint64(4096)
call('lsm_list_modules', NR['lsm_list_modules'], buf, ctypes.byref(size), 0)
page = libc.mmap(None, 4096, 3, 0x22, -1, 0)
call('mseal(new page)', NR['mseal'], page, 4096, 0)
call('personality(ADDR_NO_RANDOMIZE)', NR['personality'], 0x0040000)
call('syscall beyond the table (471)', NR['beyond'], 0, 0, 0)
# Hugetlb pages are not charged to the memory cgroup.
call('memfd_create(MFD_HUGETLB)', NR['memfd_create'], ctypes.c_char_p(b'hs'), 0x4)
call('mmap(MAP_HUGETLB)', NR['mmap'], 0, 2 << 20, 3, 0x40022, -1, 0)
def dirty_kb():
    try:
        with open('/proc/meminfo') as f: return next(int(l.split()[1]) for l in f if l.startswith('Dirty:'))
    except (OSError, ValueError, StopIteration): return -1
try:
    # Dirty the job's own files (workspace disk, not tmpfs), then sync: a real sync writes them back, host-wide.
    with open('.hsprobe-sync', 'wb') as f:
        chunk = os.urandom(1 << 20)
        for _ in range(16): f.write(chunk)
    before = dirty_kb(); t = time.monotonic()
    r = libc.syscall(ctypes.c_long(NR['sync']))
    ms = (time.monotonic() - t) * 1000; after = dirty_kb()
    os.unlink('.hsprobe-sync')
    print(f'sync: returned {r} in {ms:.1f} ms; Dirty {before} -> {after} kB after writing 16384 kB', flush=True)
except OSError as e: print('sync: not observable:', os.strerror(e.errno), flush=True)
try: pid, fd = pty.fork()
except OSError as e:
    # A provider may give jobs no pseudo-terminal (native: none, red team 2 item 2). The filter is still
    # tested on stdin: past it, the kernel answers ENOTTY, which counts as reached.
    print('skip: pty.fork', e)
    call('ioctl(TIOCSTI) on stdin', NR['ioctl'], 0, 0x5412, ctypes.c_char_p(b'x'))
    call('ioctl(TIOCLINUX) on stdin', NR['ioctl'], 0, 0x541C, ctypes.c_char_p(b'\\x06'))
    call('ioctl(TIOCSETD N_TTY) on stdin', NR['ioctl'], 0, 0x5423, ctypes.byref(ctypes.c_int(0)))
    pid = None
if pid == 0:
    # The child holds the pty as its controlling terminal, so only the filter can refuse TIOCSTI.
    call('ioctl(TIOCSTI) on its tty', NR['ioctl'], 0, 0x5412, ctypes.c_char_p(b'x'))
    call('ioctl(TIOCLINUX) on its tty', NR['ioctl'], 0, 0x541C, ctypes.c_char_p(b'\\x06'))
    # N_TTY, the discipline the pty already has: the kernel accepts it without loading anything.
    call('ioctl(TIOCSETD N_TTY) on its tty', NR['ioctl'], 0, 0x5423, ctypes.byref(ctypes.c_int(0)))
    os._exit(0)
out = b''
while pid is not None:
    try: chunk = os.read(fd, 4096)
    except OSError: break
    if not chunk: break
    out += chunk
if pid is not None: os.waitpid(pid, 0)
print(out.decode('utf8', 'replace').replace('\\r', ''), end='')
print('${DONE}')`;

/** The errnos the filter itself answers with: anything else came from the kernel, past the filter. */
const FILTER_ERRNOS = new Set(['EPERM', 'ENOSYS', 'EAFNOSUPPORT']);

export const syscallAllowList: Scenario<Record<string, never>> = {
  id: 'syscall-allow-list',
  title: 'syscalls outside the allow-list',
  attempts:
    'call modify_ldt, kcmp, fanotify_init, memfd_secret, io_setup, listmount, statmount, lsm_list_modules, mseal, personality(ADDR_NO_RANDOMIZE), an unassigned syscall number, memfd_create(MFD_HUGETLB), mmap(MAP_HUGETLB), ioctl TIOCSTI/TIOCLINUX/TIOCSETD on its own terminal (on stdin when the job has no pseudo-terminal), and sync() after dirtying 16 MiB (watching /proc/meminfo Dirty)',
  requires: ['filesystem'],
  async prepare() {
    return { argv: ['python3', '-c', SYSCALL_SCRIPT], observe: async () => ({}) };
  },
  judge(job) {
    return judgeCalls(job);
  },
};

function judgeCalls(job: JobFacts): Judgement {
  const unrun = notAttempted(job, DONE);
  if (unrun) return unrun;
  const calls = linesStartingWith(job.output, 'call:').map((line) => {
    const [name = '', outcome = '', value = ''] = line.split(/ (ok|err) /);
    return { line, name, outcome, value: value.trim() };
  });
  if (calls.length === 0) return { verdict: 'skipped', evidence: 'the job reported no call' };
  const allowed = calls.filter((c) => c.outcome === 'ok');
  const reached = calls.filter((c) => c.outcome === 'err' && !FILTER_ERRNOS.has(c.value));
  const sync = judgeSync(linesStartingWith(job.output, 'sync:')[0]);
  if (allowed.length > 0 || reached.length > 0 || sync.flushed) {
    const parts = [
      ...allowed.map((c) => `${c.name} succeeded`),
      ...reached.map((c) => `${c.name} reached the kernel (${c.value})`),
      ...(sync.flushed ? [sync.note] : []),
    ];
    const lines = [...allowed, ...reached].map((c) => `call: ${c.line}`);
    return { verdict: 'escaped', evidence: `the filter let through: ${parts.join('; ')}`, lines: sync.flushed ? [...lines, `sync: ${sync.line}`] : lines };
  }
  return {
    verdict: 'contained',
    evidence: `${calls.length} calls refused by the filter: ${calls.map((c) => `${c.name} ${c.value}`).join('; ')}; ${sync.note}`,
  };
}

/**
 * sync() is answered "success" without running, so its return value says
 * nothing: what shows a real sync is the host's Dirty page count (global,
 * in /proc/meminfo) falling by most of the 16 MiB the job had just
 * written. Where that cannot be seen (no /proc/meminfo, or the pages were
 * written back before the call), the sync attempt is reported as not
 * observed, never as contained.
 */
function judgeSync(line: string | undefined): { flushed: boolean; note: string; line: string } {
  const m = line === undefined ? null : /^returned (-?\d+) in ([\d.]+) ms; Dirty (-?\d+) -> (-?\d+) kB after writing (\d+) kB$/.exec(line);
  if (line === undefined || m === null) return { flushed: false, note: `sync not observed (${line ?? 'no report'})`, line: line ?? '' };
  const [ms, before, after, written] = [Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])];
  if (before < 0 || after < 0) return { flushed: false, note: 'sync not observed (/proc/meminfo unreadable)', line };
  if (before < written / 2) return { flushed: false, note: `sync not observed (only ${before} kB dirty before the call)`, line };
  if (before - after >= written / 2)
    return { flushed: true, note: `sync() wrote back the host's dirty pages (Dirty ${before} -> ${after} kB in ${ms} ms)`, line };
  return { flushed: false, note: `sync() returned ${m[1]} in ${ms} ms and wrote nothing back (Dirty ${before} -> ${after} kB)`, line };
}
