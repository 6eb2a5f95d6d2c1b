/**
 * Memory the job holds outside its own pages (second red team, item 1): TCP
 * and UDP socket buffers on the loopback of its private network namespace.
 * On cgroup v1 the kernel charges socket memory to a workspace only once
 * `memory.kmem.tcp.limit_in_bytes` is set for it; without that a job with a
 * 64 MiB budget queued 1.6 GiB in loopback TCP buffers, and socket memory is
 * counted against the host-global tcp_mem/udp_mem, past which TCP fails for
 * every service on the host.
 *
 * Bounded on its own, so even a provider that limits nothing cannot hurt the
 * host: the job stops at min(4 × budget, 512 MiB) per protocol, frees the TCP
 * buffers before it queues UDP, and the host refuses to start it when its
 * own socket memory plus that cap would reach tcp_mem[0]/udp_mem[0] (the
 * kernel's "no pressure" line, well below tcp_mem[2]).
 */
import { readFileSync } from 'node:fs';
import { linesStartingWith, notAttempted, type Judgement, type Scenario } from './probe-types.js';

const DONE = 'probe-done';
const PAGE = 4096;
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
/** The most the attempt queues per protocol, whatever the budget. */
export const SOCKET_ATTEMPT_CEILING = 512 * 1024 * 1024;

/**
 * Per protocol: open loopback pairs (TCP) or receivers (UDP) with 4 MiB
 * buffers and fill them without reading, until the kernel's own per-socket
 * figures (SO_MEMINFO: receive queue + send queue, in truesize, what socket
 * memory accounting charges) reach the cap, or three sockets in a row take
 * less than 1 MiB (the job is being limited), or 6 s pass.
 */
export const SOCKETS_SCRIPT = `import errno, socket, struct, sys, time
cap = int(sys.argv[1])
S = socket
chunk = b'\\0' * 65536
def held(socks):
    total = 0
    for s in socks:
        try:
            v = struct.unpack('9I', s.getsockopt(S.SOL_SOCKET, 55, 36)); total += v[0] + v[5]
        except OSError: pass
    return total
def note(errs, e):
    name = errno.errorcode.get(e.errno, str(e.errno)); errs[name] = errs.get(name, 0) + 1
def report(proto, socks, sent, errs, why):
    print('%s-held: %d sent=%d sockets=%d stop=%s errors=%s' % (proto, held(socks), sent, len(socks), why, ','.join('%s:%d' % kv for kv in sorted(errs.items())) or 'none'), flush=True)
    for s in socks: s.close()
def tcp():
    socks, errs, sent, stalled, why = [], {}, 0, 0, 'time'
    srv = S.socket(); srv.bind(('127.0.0.1', 0)); srv.listen(64)
    end = time.monotonic() + 6
    while time.monotonic() < end:
        h = held(socks)
        if h >= cap: why = 'cap'; break
        if stalled >= 3: why = 'limited'; break
        try:
            c = S.socket(); c.setsockopt(S.SOL_SOCKET, S.SO_SNDBUF, 4 << 20); c.connect(srv.getsockname())
            r, _ = srv.accept(); r.setsockopt(S.SOL_SOCKET, S.SO_RCVBUF, 4 << 20)
        except OSError as e: note(errs, e); why = 'refused'; break
        c.setblocking(False); socks += [c, r]; before, waits = sent, 0
        while waits < 5 and sent - before < (16 << 20) and h + sent - before < cap:
            try: sent += c.send(chunk); waits = 0
            except BlockingIOError: note(errs, OSError(errno.EAGAIN, '')); waits += 1; time.sleep(0.005)
            except OSError as e: note(errs, e); break
        stalled = stalled + 1 if sent - before < (1 << 20) else 0
    srv.close(); report('tcp', socks, sent, errs, why)
def udp():
    socks, errs, sent, stalled, why = [], {}, 0, 0, 'time'
    tx = S.socket(S.AF_INET, S.SOCK_DGRAM); tx.setblocking(False)
    end = time.monotonic() + 6
    while time.monotonic() < end:
        h = held(socks)
        if h >= cap: why = 'cap'; break
        if stalled >= 3: why = 'limited'; break
        try:
            r = S.socket(S.AF_INET, S.SOCK_DGRAM); r.setsockopt(S.SOL_SOCKET, S.SO_RCVBUF, 4 << 20); r.bind(('127.0.0.1', 0))
        except OSError as e: note(errs, e); why = 'refused'; break
        socks.append(r)
        for _ in range(160):
            if h + 60000 * _ >= cap: break
            try: tx.sendto(chunk[:60000], r.getsockname()); sent += 60000
            except BlockingIOError: note(errs, OSError(errno.EAGAIN, '')); time.sleep(0.001)
            except OSError as e: note(errs, e)
        stalled = stalled + 1 if held(socks) - h < (1 << 20) else 0
    tx.close(); report('udp', socks, sent, errs, why)
tcp()
udp()
print('${DONE}')`;

export interface SocketMemoryFacts {
  budgetBytes: number;
  /** What the job was told to stop at, per protocol. */
  capBytes: number;
  /** The host's own figures (/proc/net/sockstat, pages): its peak rise during the job, and tcp_mem[2]. */
  host: { tcpPeakRiseBytes: number; udpPeakRiseBytes: number; tcpMemMaxBytes: number } | undefined;
}

interface SocketHost {
  tcpPages: number;
  udpPages: number;
  tcpMem: number[];
  udpMem: number[];
}

/** Host socket memory in pages, and the kernel's thresholds; undefined where /proc lacks them. */
export function readSocketHost(): SocketHost | undefined {
  try {
    const stat = readFileSync('/proc/net/sockstat', 'utf8');
    const pages = (proto: string) => Number(new RegExp(`^${proto}:.*\\bmem (\\d+)`, 'm').exec(stat)?.[1] ?? 0);
    const limits = (file: string) => readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
    return { tcpPages: pages('TCP'), udpPages: pages('UDP'), tcpMem: limits('/proc/sys/net/ipv4/tcp_mem'), udpMem: limits('/proc/sys/net/ipv4/udp_mem') };
  } catch {
    return undefined;
  }
}

export const socketMemory: Scenario<SocketMemoryFacts> = {
  id: 'socket-memory',
  title: 'memory held in socket buffers',
  attempts: 'queue loopback TCP, then UDP, buffers (4 MiB each, never read) up to min(4 × the memory budget, 512 MiB); the memory budget must bound them',
  requires: ['memory'],
  async prepare(host) {
    const capBytes = Math.min(4 * host.budget.memoryBytes, SOCKET_ATTEMPT_CEILING);
    const start = readSocketHost();
    const capPages = Math.ceil(capBytes / PAGE);
    // Never the probe that drives the host into TCP memory pressure (or near tcp_mem[2]).
    if (start !== undefined && (start.tcpPages + capPages >= (start.tcpMem[0] ?? Infinity) || start.udpPages + capPages >= (start.udpMem[0] ?? Infinity))) {
      throw new Error(
        `the host already holds ${start.tcpPages} TCP / ${start.udpPages} UDP pages of socket memory: ${capPages} more would reach tcp_mem[0]/udp_mem[0], so the attempt is not made`,
      );
    }
    let peak = start === undefined ? undefined : { tcp: start.tcpPages, udp: start.udpPages };
    return {
      argv: ['python3', '-c', SOCKETS_SCRIPT, String(capBytes)],
      async watch(signal) {
        while (!signal.aborted && peak !== undefined) {
          const now = readSocketHost();
          if (now !== undefined) peak = { tcp: Math.max(peak.tcp, now.tcpPages), udp: Math.max(peak.udp, now.udpPages) };
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      },
      observe: async () => ({
        budgetBytes: host.budget.memoryBytes,
        capBytes,
        host:
          start === undefined || peak === undefined
            ? undefined
            : {
                tcpPeakRiseBytes: (peak.tcp - start.tcpPages) * PAGE,
                udpPeakRiseBytes: (peak.udp - start.udpPages) * PAGE,
                tcpMemMaxBytes: (start.tcpMem[2] ?? 0) * PAGE,
              },
      }),
    };
  },
  judge(job, facts) {
    const held = (proto: 'tcp' | 'udp') => {
      const line = linesStartingWith(job.output, `${proto}-held:`)[0];
      return line === undefined ? undefined : { bytes: Number(line.split(' ')[0]), line };
    };
    const tcp = held('tcp');
    const udp = held('udp');
    const hostNote =
      facts.host === undefined
        ? ''
        : `; host socket memory rose by at most ${mib(facts.host.tcpPeakRiseBytes)} TCP, ${mib(facts.host.udpPeakRiseBytes)} UDP (tcp_mem[2] = ${mib(facts.host.tcpMemMaxBytes)})`;
    const over = [tcp && { proto: 'TCP', ...tcp }, udp && { proto: 'UDP', ...udp }].filter((p) => p !== undefined && p.bytes > facts.budgetBytes);
    if (over.length > 0) {
      return {
        verdict: 'escaped',
        evidence: `${over.map((p) => `${p!.proto} buffers held ${mib(p!.bytes)}`).join(', ')} against a ${mib(facts.budgetBytes)} memory budget, and the job was not limited${hostNote}`,
        lines: over.map((p) => p!.line),
      } satisfies Judgement;
    }
    const unrun = notAttempted(job, DONE);
    if (unrun) return unrun;
    if (tcp === undefined || udp === undefined || Number.isNaN(tcp.bytes) || Number.isNaN(udp.bytes))
      return { verdict: 'skipped', evidence: 'the attempt did not report what its sockets held' };
    return {
      verdict: 'contained',
      evidence: `socket buffers were held at ${mib(tcp.bytes)} (TCP) and ${mib(udp.bytes)} (UDP) of the ${mib(facts.capBytes)} asked for, within the ${mib(facts.budgetBytes)} memory budget${hostNote}`,
    };
  },
};
