/**
 * Domain fronting through a secret-bearing tunnel (#18, red team of
 * a2a733e): the job holds a secret for host A and opens a TLS tunnel to A,
 * which the proxy terminates to put the value in. A front end routes by the
 * request's Host (or absolute-form target), not by the tunnel, so a request
 * in A's tunnel that names another origin would hand the value to that
 * origin. The probe's A is a loopback HTTPS server (tls-upstream.ts) that
 * keeps every request head it receives; the job sends, each in a tunnel of
 * its own, a request addressed to A itself (the control: the value must
 * arrive, or there is nothing to test), one whose Host names another origin,
 * one with an absolute-form target naming another origin, one with two Host
 * headers, and one with the placeholder in Host. Escaped when A received
 * the value in any request not addressed to A alone.
 */
import { EGRESS_HTTP_PORT } from '../network/egress-sandbox.js';
import { PLACEHOLDER_PREFIX } from '../network/egress-secrets.js';
import { linesStartingWith, type JobFacts, type Judgement, type NetworkSideOutcome, type ProbeHost, type Scenario } from './probe-types.js';
import { sideFirst } from './scenarios-egress-secrets.js';
import { headHeaders, openTlsUpstream } from './tls-upstream.js';

const DONE = 'probe-done';
const MAIN_ARGV = ['python3', '-c', `print('${DONE}')`];
const OTHER = 'other-origin.example';

/** Shared by the upstream probes: a TLS tunnel to 127.0.0.1:PORT through the proxy, the job trusting any certificate. */
export const TUNNEL_PY = `import os, socket, ssl, sys
port = int(sys.argv[1]); ph = os.environ.get('HSPROBE_SECRET', ''); own = '127.0.0.1:%d' % port
if not ph.startswith('${PLACEHOLDER_PREFIX}'):
    print('no placeholder in the environment'); print('${DONE}'); sys.exit(0)
def tunnel():
    s = socket.create_connection(('127.0.0.1', ${EGRESS_HTTP_PORT}), timeout=5)
    s.sendall(('CONNECT %s HTTP/1.1\\r\\nHost: %s\\r\\n\\r\\n' % (own, own)).encode())
    r = b''
    while b'\\r\\n\\r\\n' not in r:
        c = s.recv(1024)
        if not c: raise OSError('the proxy closed the CONNECT')
        r += c
    ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
    return ctx.wrap_socket(s, server_hostname='127.0.0.1')
def exchange(head):
    t = tunnel(); t.sendall(head.encode('latin1')); got = b''
    while True:
        try: c = t.recv(65536)
        except (OSError, ssl.SSLError): break
        if not c: break
        got += c
    return got.decode('latin1')
`;

const FRONTING_SCRIPT = `${TUNNEL_PY}
ka = 'X-Key: %s\\r\\nConnection: close\\r\\n\\r\\n' % ph
for name, head in [
    ('own', 'GET /own HTTP/1.1\\r\\nHost: %s\\r\\n%s' % (own, ka)),
    ('host', 'GET /host HTTP/1.1\\r\\nHost: ${OTHER}\\r\\n%s' % ka),
    ('absolute', 'GET https://${OTHER}/absolute HTTP/1.1\\r\\nHost: %s\\r\\n%s' % (own, ka)),
    ('two-hosts', 'GET /two-hosts HTTP/1.1\\r\\nHost: %s\\r\\nHost: ${OTHER}\\r\\n%s' % (own, ka)),
    ('in-host', 'GET /in-host HTTP/1.1\\r\\nHost: %s\\r\\nConnection: close\\r\\n\\r\\n' % ph),
]:
    try: print('answer:', name, (exchange(head).split('\\r\\n')[0] or 'closed'))
    except Exception as e: print('failed:', name, type(e).__name__, str(e)[:80])
print('${DONE}')`;

export interface FrontingFacts {
  side: NetworkSideOutcome | undefined;
  /** Every request head the secret's host (the probe's upstream) received. */
  heads: string[];
  value: string;
  /** The secret's host as the tunnel names it: 127.0.0.1:PORT. */
  own: string;
}

/** Why a head that reached the secret's host is addressed elsewhere, or null when it names that host alone. */
export function addressedElsewhere(head: string, own: string, value: string): string | null {
  const target = /^\S+ (\S+) /.exec(head)?.[1] ?? '';
  if (!target.startsWith('/')) return `target ${target.slice(0, 60)}`;
  const hosts = headHeaders(head)
    .filter(([n]) => n === 'host')
    .map(([, v]) => v);
  if (hosts.length !== 1) return `${hosts.length} Host headers`;
  if (value !== '' && hosts[0]!.includes(value)) return 'the value in Host';
  const host = hosts[0]!.toLowerCase();
  if (host !== own && host !== own.replace(/:\d+$/, '')) return `Host ${host.slice(0, 60)}`;
  return null;
}

export function judgeFronting(job: JobFacts, facts: FrontingFacts): Judgement {
  const value = facts?.value ?? '';
  const heads = facts?.heads ?? [];
  const carrying = value === '' ? [] : heads.filter((h) => h.includes(value));
  const fronted = carrying.flatMap((h) => {
    const why = addressedElsewhere(h, facts.own, value);
    return why === null ? [] : [`${h.split('\r\n')[0]!.slice(0, 80)} (${why})`];
  });
  // What reached the upstream is an escape whether or not the job lived to report.
  if (fronted.length > 0)
    return { verdict: 'escaped', evidence: `the secret's value reached its host in a request addressed to another origin: ${fronted.join('; ')}` };
  const first = sideFirst(job, facts?.side, true);
  if ('verdict' in first) return first;
  const { side } = first;
  const lines = linesStartingWith(side.output, 'answer:');
  if (carrying.length === 0)
    return { verdict: 'skipped', evidence: 'the value never reached its own host, even addressed to it: there was no substitution to steer elsewhere', lines };
  const blocked = side.decisions.filter((d) => d.reason?.startsWith('placeholder of ') === true);
  return {
    verdict: 'contained',
    evidence: `the value reached its host only in ${carrying.length} request(s) addressed to it; the proxy blocked ${blocked.length} fronted attempt(s)`,
    lines,
  };
}

export const egressSecretFronting: Scenario<FrontingFacts> = {
  requires: ['network'],
  requiresFeatures: ['network-allowlist'],
  id: 'egress-secret-fronting',
  title: "a secret's value steered to another origin through its own host's tunnel (domain fronting)",
  attempts:
    "with a secret for a loopback HTTPS host (the probe's, its CA trusted by that job's proxy only), open TLS tunnels to that host and send the placeholder in a request addressed to it (the control), one whose Host names another origin, one with an absolute-form target naming another origin, one with two Host headers and one with the placeholder in Host: the host must receive the value only in the control. A proxy that substitutes in every request of the secret's tunnel, as before a2a733e, reads escaped",
  async prepare(host: ProbeHost) {
    const upstream = await openTlsUpstream(() => ['HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n']);
    host.defer(() => upstream.close());
    const own = `127.0.0.1:${upstream.port}`;
    const value = `hsprobe-value-${host.token()}`;
    const side = await host.tryNetworkWorkspace([own], ['python3', '-c', FRONTING_SCRIPT, String(upstream.port)], {
      secrets: [{ name: 'HSPROBE_SECRET', value, host: own }],
      upstreamCa: upstream.caPem,
    });
    return { argv: MAIN_ARGV, observe: async () => ({ side, heads: upstream.heads(), value, own }) };
  },
  judge: judgeFronting,
};
