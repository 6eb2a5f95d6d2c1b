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

/** family name, number, type, protocol: each must fail at socket(). */
const SOCKET_SCRIPT = `import os, random, socket
avoid_env = os.environ.get('HSPROBE_AVOID_PORTS')
avoid = {int(p) for p in (avoid_env or '').split(',') if p}
R, D, S, Q = socket.SOCK_RAW, socket.SOCK_DGRAM, socket.SOCK_STREAM, socket.SOCK_SEQPACKET
attempts = [('AF_VSOCK', 40, S, 0), ('AF_PACKET', 17, R, 0x0300), ('AF_PACKET dgram', 17, D, 0x0300), ('AF_ALG', 38, Q, 0),
    ('AF_KEY', 15, R, 2), ('AF_BLUETOOTH', 31, R, 1), ('AF_CAN', 29, R, 1), ('AF_XDP', 44, R, 0), ('AF_TIPC', 30, 5, 0),
    ('AF_RDS', 21, Q, 0), ('AF_LLC', 26, D, 0), ('AF_PPPOX', 24, S, 0), ('AF_KCM', 41, D, 0), ('AF_QIPCRTR', 42, D, 0),
    ('AF_SMC', 43, S, 0), ('AF_MCTP', 45, D, 0), ('AF_RXRPC', 33, D, 2), ('AF_PHONET', 35, D, 0), ('AF_IEEE802154', 36, R, 0),
    ('AF_NETLINK NETLINK_AUDIT', 16, R, 9), ('AF_NETLINK NETLINK_KOBJECT_UEVENT', 16, D, 15), ('AF_NETLINK NETLINK_NETFILTER', 16, R, 12),
    ('AF_NETLINK NETLINK_SOCK_DIAG', 16, R, 4), ('AF_NETLINK NETLINK_GENERIC', 16, R, 16), ('AF_NETLINK NETLINK_XFRM', 16, R, 6)]
for name, family, kind, proto in attempts:
    try: s = socket.socket(family, kind, proto)
    except OSError as e:
        print('refused:', name, os.strerror(e.errno) if e.errno else e); continue
    print('created:', name)
    # bind only when the host said which ports to avoid (it could read its /proc/cmdline).
    if family == 40 and avoid_env is not None:
        port = random.choice([p for p in range(49152, 65536) if p not in avoid])
        try: s.bind((0xFFFFFFFF, port)); print('created:', name, 'bound to port', port, 'in the host VM vsock space')
        except OSError as e: print('note:', name, 'bind refused', os.strerror(e.errno))
    s.close()
for name, family in (('AF_UNIX', 1), ('AF_INET', 2), ('AF_INET6', 10)):
    try: socket.socket(family, S).close(); print('works:', name)
    except OSError as e: print('broken:', name, os.strerror(e.errno))
print('${DONE}')`;

export const socketFamilies: Scenario<Record<string, never>> = {
  id: 'socket-families',
  title: 'socket address families',
  attempts: 'socket() for AF_VSOCK (then bind() on a random high port with VMADDR_CID_ANY, never connect), AF_PACKET, AF_ALG, AF_KEY, AF_BLUETOOTH, AF_CAN, AF_XDP and other families, and netlink with protocols other than NETLINK_ROUTE',
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
    if (created.length > 0) return { verdict: 'escaped', evidence: `the job opened: ${created.join('; ')}`, lines: created.map((l) => `created: ${l}`) };
    const refused = linesStartingWith(job.output, 'refused:');
    if (refused.length === 0) return { verdict: 'skipped', evidence: 'the job reported no socket attempt' };
    const works = linesStartingWith(job.output, 'works:');
    return { verdict: 'contained', evidence: `${refused.length} families refused (${refused.slice(0, 3).join('; ')}, ...); still usable: ${works.join(', ') || 'none'}` };
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
          ioctl=16 if X86 else 29, io_setup=206 if X86 else 0, memfd_secret=447, statmount=457, listmount=458, lsm_list_modules=461, mseal=462, beyond=471)
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
try: pid, fd = pty.fork()
except OSError as e:
    # A provider may give jobs no pseudo-terminal (native: none, red team 2 item 2). The filter is still
    # tested on stdin: past it, the kernel answers ENOTTY, which counts as reached.
    print('skip: pty.fork', e)
    call('ioctl(TIOCSTI) on stdin', NR['ioctl'], 0, 0x5412, ctypes.c_char_p(b'x'))
    call('ioctl(TIOCLINUX) on stdin', NR['ioctl'], 0, 0x541C, ctypes.c_char_p(b'\\x06'))
    pid = None
if pid == 0:
    # The child holds the pty as its controlling terminal, so only the filter can refuse TIOCSTI.
    call('ioctl(TIOCSTI) on its tty', NR['ioctl'], 0, 0x5412, ctypes.c_char_p(b'x'))
    call('ioctl(TIOCLINUX) on its tty', NR['ioctl'], 0, 0x541C, ctypes.c_char_p(b'\\x06'))
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
  attempts: 'call modify_ldt, kcmp, fanotify_init, memfd_secret, io_setup, listmount, statmount, lsm_list_modules, mseal, personality(ADDR_NO_RANDOMIZE), an unassigned syscall number, and ioctl TIOCSTI/TIOCLINUX on its own terminal (on stdin when the job has no pseudo-terminal)',
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
  if (allowed.length > 0 || reached.length > 0) {
    const parts = [...allowed.map((c) => `${c.name} succeeded`), ...reached.map((c) => `${c.name} reached the kernel (${c.value})`)];
    return { verdict: 'escaped', evidence: `the filter let through: ${parts.join('; ')}`, lines: [...allowed, ...reached].map((c) => `call: ${c.line}`) };
  }
  return { verdict: 'contained', evidence: `${calls.length} calls refused by the filter: ${calls.map((c) => `${c.name} ${c.value}`).join('; ')}` };
}
