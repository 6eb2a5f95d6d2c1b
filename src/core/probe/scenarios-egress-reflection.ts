/**
 * Reflection (#18 follow-up): the secret's own host receives the value, as
 * it must, and sends it back — the shapes a real server has: a CORS
 * `Origin` answered in `Access-Control-Allow-Origin`, an echo endpoint
 * answering the request's headers in a Content-Length body (the value split
 * across two TLS records) and in a chunked body (a chunk boundary inside the
 * value), and a gzip-compressed echo when the request accepts gzip; and two
 * shapes the red team found: the value stored through one tunnel and
 * fetched gzip-compressed through another that carried none (`fetch`, the
 * server ignoring `Accept-Encoding: identity`), and an echo whose
 * Content-Length ends inside the value, the rest following as if a body
 * (`miscount`: a server counting characters, not bytes; asked last, since
 * the masked end it makes is taken for a probe of the redactor and cuts the
 * job's network); and the value
 * encoded as real servers echo it: PHP's JSON (`/` as `\/`), percent-encoded
 * in a redirect's query, inside echoed Basic credentials (base64 of
 * `user:value`), and in hex. The
 * probe's host is a loopback HTTPS server (tls-upstream.ts); the job sends
 * its placeholder in `Origin` and `X-Key` in tunnels to it, addressed to it,
 * and prints every response (the gzip one decompressed). Escaped when the
 * value shows in the job's output; contained when the value reached the
 * host and the job saw none of it.
 */
import { gzipSync } from 'node:zlib';
import { linesStartingWith, type JobFacts, type Judgement, type NetworkSideOutcome, type ProbeHost, type Scenario } from './probe-types.js';
import { TUNNEL_PY } from './scenarios-egress-fronting.js';
import { sideFirst } from './scenarios-egress-secrets.js';
import { headHeaders, openTlsUpstream } from './tls-upstream.js';

const DONE = 'probe-done';
const MAIN_ARGV = ['python3', '-c', `print('${DONE}')`];

const REFLECTION_SCRIPT = `${TUNNEL_PY}
import gzip
def show(name, extra):
    keys = '' if name == 'fetch' else 'Origin: %s\\r\\nX-Key: %s\\r\\n' % (ph, ph)
    got = exchange('GET /%s HTTP/1.1\\r\\nHost: %s\\r\\n%s%sConnection: close\\r\\n\\r\\n' % (name, own, keys, extra))
    head, _, body = got.partition('\\r\\n\\r\\n')
    if 'transfer-encoding: chunked' in head.lower():
        rest, body = body, ''
        while True:
            size, _, rest = rest.partition('\\r\\n')
            n = int(size.split(';')[0] or '0', 16)
            if n == 0: break
            body, rest = body + rest[:n], rest[n + 2:]
    if 'content-encoding: gzip' in head.lower():
        try: body = gzip.decompress(body.encode('latin1')).decode('latin1')
        except Exception as e: body = 'undecodable gzip: ' + type(e).__name__
    print('answer:', name, repr(head + ' | ' + body)[:1500])
for name, extra in [('cors', ''), ('length', ''), ('chunked', ''), ('gzip', 'Accept-Encoding: gzip\\r\\n'), ('fetch', ''), ('json', ''), ('percent', ''), ('basic', ''), ('keyed', ''), ('hex', ''), ('hexupper', ''), ('miscount', '')]:
    try: show(name, extra)
    except Exception as e: print('failed:', name, type(e).__name__, str(e)[:80])
print('${DONE}')`;

const ENCODED_PATHS = ['json', 'percent', 'basic', 'keyed', 'hex', 'hexupper'] as const;
type EncodedPath = (typeof ENCODED_PATHS)[number];

/**
 * The encoded forms the probe host writes the value in (ENCODED_PATHS), each with the
 * part of it that depends on the value alone: the judge looks for those parts in the job's output. Written here
 * on their own, not taken from the redactor's list (secret-value-forms.ts), so a gap there cannot hide itself.
 */
export function hostEncodings(key: string): Record<EncodedPath, { text: string; valuePart: string }> {
  const json = JSON.stringify(key).slice(1, -1).split('/').join('\\/');
  const percent = encodeURIComponent(key);
  // base64 with the value at offset 2 ("user:", HTTP Basic credentials echoed back) and at offset 1 ("key=").
  const basic = Buffer.from(`user:${key}`, 'utf8').toString('base64');
  const keyed = Buffer.from(`key=${key}`, 'utf8').toString('base64');
  const hex = Buffer.from(key, 'utf8').toString('hex');
  const inner = (encoded: string, prefixBytes: number) =>
    encoded.slice(Math.floor(prefixBytes / 3) * 4 + 4, Math.floor((prefixBytes + Buffer.byteLength(key)) / 3) * 4);
  return {
    json: { text: json, valuePart: json },
    percent: { text: percent, valuePart: percent },
    basic: { text: basic, valuePart: inner(basic, 5) },
    keyed: { text: keyed, valuePart: inner(keyed, 4) },
    hex: { text: hex, valuePart: hex },
    hexupper: { text: hex.toUpperCase(), valuePart: hex.toUpperCase() },
  };
}

/**
 * The probe host's answer to a head: the request's X-Key and Origin reflected, in the shape its path asks for.
 * `memory` keeps the last X-Key that was not a placeholder (a server storing what it received), for `fetch`.
 */
export function reflect(head: string, memory: { key: string } = { key: '' }): Array<string | Buffer> {
  const headers = headHeaders(head);
  const get = (name: string) => headers.find(([n]) => n === name)?.[1] ?? '';
  const received = get('x-key');
  if (!received.startsWith('hs-secret-') && received !== '') memory.key = received;
  const key = received;
  const path = /^\S+ \/(\S*)/.exec(head)?.[1] ?? '';
  const cors = `Access-Control-Allow-Origin: ${get('origin')}\r\n`;
  const echo = `{"x-key":"${key}"}`;
  const half = Math.floor(key.length / 2);
  if (path === 'chunked') {
    const parts = [`{"x-key":"${key.slice(0, half)}`, `${key.slice(half)}"}`];
    return [
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
      ...parts.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`),
      '0\r\n\r\n',
    ];
  }
  if (path === 'fetch') {
    // The stored value, compressed whatever the request accepts (this tunnel sent no value of its own).
    const body = gzipSync(Buffer.from(`{"stored":"${memory.key}"}`, 'latin1'));
    return [Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`, 'latin1'), body];
  }
  if (path === 'miscount') {
    // Content-Length ends half-way into the value; the rest follows as if it were part of the body.
    const shown = `{"x-key":"${key.slice(0, half)}`;
    return [`HTTP/1.1 200 OK\r\nContent-Length: ${shown.length}\r\nConnection: close\r\n\r\n${shown}`, `${key.slice(half)}"}`];
  }
  if (path === 'gzip' && /gzip/i.test(get('accept-encoding'))) {
    const body = gzipSync(Buffer.from(echo, 'latin1'));
    return [Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`, 'latin1'), body];
  }
  if ((ENCODED_PATHS as readonly string[]).includes(path)) {
    // Encoded, as real servers echo: PHP's json_encode (`/` as `\/`), a redirect's query, Basic auth, a hex dump.
    const form = hostEncodings(key)[path as EncodedPath].text;
    const body = `{"${path}":"${form}"}`;
    const location = path === 'percent' ? `Location: /callback?key=${form}\r\n` : '';
    return [`HTTP/1.1 200 OK\r\n${location}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`];
  }
  const split = echo.indexOf(key) + half;
  return [`HTTP/1.1 200 OK\r\n${cors}Content-Length: ${echo.length}\r\nConnection: close\r\n\r\n${echo.slice(0, split)}`, echo.slice(split)];
}

/** How many characters of the value (or of a form's value part) showing in the job's output make an escape. */
const SHOWN_WINDOW = 10;
/** The paths whose answers are plain 200s the proxy must pass masked (gzip, fetch and miscount may be refused). */
const MUST_ANSWER = ['cors', 'length', 'chunked', ...ENCODED_PATHS] as const;

/** Every run of SHOWN_WINDOW characters of `text` (the text itself when shorter). */
function windowsOf(text: string): string[] {
  if (text.length <= SHOWN_WINDOW) return [text];
  return Array.from({ length: text.length - SHOWN_WINDOW + 1 }, (_, i) => text.slice(i, i + SHOWN_WINDOW));
}

export interface ReflectionFacts {
  side: NetworkSideOutcome | undefined;
  heads: string[];
  value: string;
}

export function judgeReflection(job: JobFacts, facts: ReflectionFacts): Judgement {
  const value = facts?.value ?? '';
  const side = facts?.side;
  const output = side !== undefined && 'output' in side ? side.output : '';
  // Any SHOWN_WINDOW characters of the value, or of the value's part of a form the host encoded it in, also as
  // the job prints it (python's repr() doubles a `\`): a value shown in part, or in halves across two answers, is
  // no more contained than a whole one (red team). What masking may leave (a value's first 3 bytes at a stream's
  // end, a base64 group the value shares with its neighbours) is shorter.
  // (A value too short to have a base64 group of its own has an empty part there, which would be found anywhere.)
  const parts = value === '' ? [] : [value, ...Object.values(hostEncodings(value)).map((f) => f.valuePart)].filter((f) => f !== '');
  const forms = [...new Set(parts.flatMap((f) => [f, f.split('\\').join('\\\\')]))];
  const found = [...new Set(forms.flatMap((f) => windowsOf(f).filter((w) => output.includes(w))))];
  if (found.length > 0) {
    const shown = linesStartingWith(output, 'answer:').filter((l) => found.some((f) => l.includes(f)));
    const hide = (line: string) => found.reduce((l, f) => l.split(f).join('<the value>'), line);
    return {
      verdict: 'escaped',
      evidence: `the secret's value came back to the job from its host in ${shown.map((l) => l.split(' ')[0]).join(', ') || 'its output'}`,
      lines: shown.map(hide),
    };
  }
  const first = sideFirst(job, side, true);
  if ('verdict' in first) return first;
  // Each shape the host answers in plainly must have reached the job: a shape that failed on the way tested nothing.
  const answered = new Set(linesStartingWith(first.side.output, 'answer:').map((l) => l.split(' ')[0]));
  const missing = MUST_ANSWER.filter((path) => !answered.has(path));
  if (missing.length > 0)
    return { verdict: 'skipped', evidence: `the host's ${missing.join(', ')} answer(s) never reached the job: those shapes were not tested` };
  const reached = (facts.heads ?? []).filter((h) => h.includes(value)).length;
  if (reached === 0) return { verdict: 'skipped', evidence: 'the value never reached its host: there was nothing to reflect' };
  return {
    verdict: 'contained',
    evidence: `the value reached its host in ${reached} request(s) and came back in none of the ${linesStartingWith(first.side.output, 'answer:').length} answer(s) the job read`,
  };
}

export const egressSecretReflection: Scenario<ReflectionFacts> = {
  requires: ['network'],
  requiresFeatures: ['network-allowlist'],
  id: 'egress-secret-reflection',
  title: "a secret's value sent back to the job by its own host (reflection)",
  attempts:
    "with a secret for a loopback HTTPS host (the probe's, its CA trusted by that job's proxy only) that reflects what it receives — the Origin header in Access-Control-Allow-Origin, the X-Key header echoed in a Content-Length body split across two TLS records, in a chunked body with a chunk boundary inside the value, gzip-compressed when the request accepts gzip, in a Content-Length that ends half-way into the value with the rest following, and, stored from an earlier request, gzip-compressed through a tunnel that sent no value; and encoded as servers echo it (JSON with `/` as `\\/`, percent-encoded in a Location query, base64 inside echoed Basic credentials, hex) — send the placeholder in Origin and X-Key and print every answer: the value must never show in the job's output, as is or encoded. A proxy that hands responses back as they come, or masks the value only as is, reads escaped",
  async prepare(host: ProbeHost) {
    const memory = { key: '' };
    const upstream = await openTlsUpstream((head) => reflect(head, memory));
    host.defer(() => upstream.close());
    const own = `127.0.0.1:${upstream.port}`;
    // A `/` and a `+`: its JSON (`\/`) and percent-encoded forms differ from the value as is.
    const value = `hsprobe/value+${host.token()}`;
    const side = await host.tryNetworkWorkspace([own], ['python3', '-c', REFLECTION_SCRIPT, String(upstream.port)], {
      secrets: [{ name: 'HSPROBE_SECRET', value, host: own }],
      upstreamCa: upstream.caPem,
    });
    return { argv: MAIN_ARGV, observe: async () => ({ side, heads: upstream.heads(), value }) };
  },
  judge: judgeReflection,
};
