/**
 * An allowed tunnel of a job that carries secrets (#18 item 3). The proxy
 * must see the bytes to keep the promise both ways (the value reaches only
 * its own host; a placeholder going anywhere else is blocked and reported),
 * so for such a job it never splices blind:
 *
 *   TLS (the job's first byte is a handshake record): the proxy first
 *   connects to the upstream with TLS and verifies its certificate normally
 *   (a failure ends the tunnel, recorded); then it answers the job's
 *   handshake with a leaf certificate for the host, signed by the
 *   workspace's CA (egress-ca.ts), and reads the job's HTTP/1.1 requests one
 *   by one: in a request to the secret's own host its placeholder in a
 *   header value becomes the value (in a Content-Length body too, when the
 *   secret opted in); a placeholder of any secret not for this host, in
 *   the head or the body, ends the tunnel with a 403, recorded. Only
 *   http/1.1 is offered (ALPN) on both sides.
 *   Anything else: relayed as it is, scanned; a placeholder in it (plain
 *   text is never substituted: it would send the value unencrypted) ends
 *   the tunnel, recorded.
 *
 * A chunked body or an upgraded connection (WebSocket) is not parsed as
 * requests: the head goes with `Connection: close` and the rest is relayed
 * scanned, so no bytes after it are ever taken for a head they are not.
 */
import { isIP, type Socket } from 'node:net';
import { TLSSocket, connect as tlsConnect, type SecureContext } from 'node:tls';
import { parseHead } from './egress-head.js';
import { QUIET_FLUSH_MS, ResponseRedactor, ValueMasker } from './egress-response-redact.js';
import { PlaceholderScanner, SECRET_BODY_MAX_BYTES, SUBSTITUTIONS_PER_REQUEST_MAX, placeholdersIn, secretIsFor, type JobSecret } from './egress-secrets.js';

export interface SecretTunnel {
  host: string;
  port: number;
  secrets: readonly JobSecret[];
  /** The upstream side's TLS context when it trusts other roots than Node's default (test mode), made once per proxy. */
  upstreamContext: SecureContext | undefined;
  /** The job side's TLS context for a host (the leaf the workspace CA signed for it, off the event loop), cached per proxy. */
  jobContext(host: string): Promise<SecureContext>;
  headBytes: number;
  /** A placeholder was blocked: recorded by the proxy as a denial naming the secret. */
  blocked(name: string, plain: boolean): void;
  /** The upstream's TLS failed (its certificate refused, most often): recorded. */
  upstreamRefused(why: string): void;
  substituted(name: string): void;
  /** A secret's value came back from upstream and was redacted before the job saw it (reflection). */
  redacted(name: string): void;
  /** A response could not be scanned for values (compressed, malformed) and was refused: recorded. */
  unscannable(why: string): void;
  /** A response's end was masked as a value's possible start, bytes the job may have chosen: the proxy cuts the job's other tunnels and later connections (recorded); this one ends once its answer is out. */
  probed(): void;
  /** A request was refused before it went (too many placeholders to replace): recorded. */
  requestRefused(why: string): void;
  /** Ends both sides and records the tunnel's bytes (the proxy's finish). */
  finish(): void;
}

/** Takes over an allowed, connected tunnel; `first` is whatever the job sent after its CONNECT or SOCKS request. */
export function interceptTunnel(client: Socket, upstream: Socket, first: Buffer, t: SecretTunnel): void {
  const start = (chunk: Buffer) => {
    if (chunk[0] === 0x16) terminateTls(client, upstream, chunk, t);
    else relayScanned(client, upstream, chunk, t);
  };
  if (first.length > 0) return start(first);
  client.once('data', (chunk: Buffer) => {
    client.pause();
    start(chunk);
  });
  client.resume();
}

/** Not TLS (a tunnel's, or what follows a plain HTTP request's head): relayed as it is both ways; a placeholder in what the job sends ends it. */
export function relayScanned(client: Socket, upstream: Socket, first: Buffer, t: SecretTunnel): void {
  const scanner = new PlaceholderScanner(t.secrets);
  const send = (chunk: Buffer) => {
    const found = scanner.push(chunk);
    if (found.length > 0) {
      t.blocked(found[0]!.name, true);
      if (t.port === 80 || t.port === 8080) client.end(forbidden('a secret placeholder over plain HTTP is never sent (use https)'));
      return t.finish();
    }
    if (!upstream.write(chunk)) client.pause();
  };
  upstream.on('drain', () => client.resume());
  client.on('data', send);
  client.on('end', () => upstream.end());
  // Back to the job, every value masked at its own length (reflection): a value never goes out in plain text, but
  // the promise is about what the job can see, whatever the upstream sends.
  const back = towardJob(client, upstream, t, {
    holding: () => masker.holding(),
    quiet: () => masker.flush(),
  });
  const masker = ValueMasker.of(
    t.secrets,
    (name) => t.redacted(name),
    () => back.probed(),
  );
  upstream.on('data', (chunk: Buffer) => {
    if (back.stopped()) return;
    back.deliver(masker.push(chunk));
  });
  upstream.on('end', () => back.end(masker.flush()));
  if (first.length > 0) send(first);
  client.resume();
}

function terminateTls(client: Socket, upstream: Socket, first: Buffer, t: SecretTunnel): void {
  const upTls = tlsConnect({
    socket: upstream,
    host: t.host,
    ...(isIP(t.host) === 0 ? { servername: t.host } : {}),
    // Made once per proxy: a context built per connection from a whole root bundle cost tens of ms a connection (bench).
    ...(t.upstreamContext === undefined ? {} : { secureContext: t.upstreamContext }),
    ALPNProtocols: ['http/1.1'],
  });
  let ready = false;
  upTls.on('error', (error: NodeJS.ErrnoException) => {
    if (!ready) t.upstreamRefused(error.code ?? 'tls failed');
    t.finish();
  });
  upTls.once('secureConnect', () => {
    ready = true;
    // A leaf that cannot be made (a name node-forge refuses as a SAN, a certificate it cannot encode, a signer
    // that died) ends this tunnel only: thrown in a socket handler, it would take down the engine or the shared
    // supervisor. The wait is off the event loop (a worker signs); the job's bytes stay paused meanwhile.
    t.jobContext(t.host).then(
      (secureContext) => {
        if (client.destroyed || upTls.destroyed) return t.finish();
        try {
          client.unshift(first);
          jobSide(client, upTls, secureContext, t);
        } catch {
          t.finish(); // never an unhandled rejection: that would end the engine's process
        }
      },
      (error: Error) => {
        t.upstreamRefused(`leaf ${error.name}`);
        upTls.destroy();
        t.finish();
      },
    );
  });
}

/** The job's side of a terminated tunnel: its TLS answered with the host's leaf, then requests and responses relayed. */
function jobSide(client: Socket, upTls: TLSSocket, secureContext: SecureContext, t: SecretTunnel): void {
  const job = new TLSSocket(client, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
  job.on('error', () => t.finish());
  job.on('end', () => upTls.end());
  const sent: Exchange = { methods: [] };
  relayResponses(upTls, job, t, sent);
  relayRequests(job, upTls, t, sent);
}

/** What the request side tells the response side: each forwarded request's method. */
interface Exchange {
  methods: string[];
}

/** The upstream's responses, every secret's value redacted before the job sees it (egress-response-redact.ts). */
function relayResponses(upTls: TLSSocket, job: TLSSocket, t: SecretTunnel, sent: Exchange): void {
  const back = towardJob(job, upTls, t, {
    holding: () => redactor.holding(),
    quiet: () => redactor.quiet(),
  });
  const redactor = new ResponseRedactor(t.secrets, {
    nextMethod: () => sent.methods.shift(),
    redacted: (name) => t.redacted(name),
    probed: () => back.probed(),
  });
  upTls.on('data', (chunk: Buffer) => {
    if (back.stopped()) return;
    const { out, refused } = redactor.push(chunk);
    if (refused === undefined) return back.deliver(out);
    t.unscannable(refused);
    back.endWith(Buffer.concat([out, Buffer.from(badGateway(refused), 'latin1')]));
  });
  upTls.on('end', () => back.end(redactor.end()));
}

/**
 * The upstream-to-job half of a secret-bearing tunnel, after its redactor (a raw stream's masker, or the response
 * parser): each redacted piece goes to the job with backpressure; what the redactor holds back goes after a quiet
 * spell (quietFlusher); a probe of the redactor ends this tunnel once the masked answer is out (the proxy cuts the
 * job's other tunnels at once); and nothing more goes to a job side being ended with a last answer.
 */
function towardJob(
  job: Socket,
  upstream: Socket,
  t: SecretTunnel,
  redactor: { holding(): boolean; quiet(): Buffer },
): { probed(): void; stopped(): boolean; deliver(out: Buffer): void; endWith(answer: Buffer): void; end(rest: Buffer): void } {
  let probed = false;
  const endWith = (answer: Buffer) => {
    quiet.cancel();
    endThenFinish(job, upstream, answer, t);
  };
  const deliver = (out: Buffer) => {
    if (ending.has(job)) return;
    if (probed) return endWith(out);
    if (out.length > 0 && !job.write(out)) upstream.pause();
  };
  const quiet = quietFlusher(
    () => redactor.holding(),
    () => redactor.quiet(),
    deliver,
  );
  job.on('drain', () => {
    if (!ending.has(job)) upstream.resume();
  });
  upstream.on('close', () => quiet.cancel());
  return {
    probed() {
      probed = true;
      t.probed();
    },
    stopped: () => probed || ending.has(job),
    deliver(out) {
      deliver(out);
      if (!probed) quiet.arm();
    },
    endWith,
    end(rest) {
      quiet.cancel();
      job.end(rest);
    },
  };
}

/**
 * Releases what a redactor holds back once its upstream has been quiet for QUIET_FLUSH_MS: every read holds its
 * last bytes back whatever they are (egress-response-redact.ts), and a server that sent them and now waits for
 * the job (a greeting, a WebSocket message, a stream's event) must not wait for ever. Re-armed by each read.
 */
function quietFlusher(holding: () => boolean, flush: () => Buffer, write: (out: Buffer) => void): { arm(): void; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return {
    arm() {
      cancel();
      if (!holding()) return;
      timer = setTimeout(() => {
        timer = undefined;
        const out = flush();
        if (out.length > 0) write(out);
      }, QUIET_FLUSH_MS);
      timer.unref();
    },
    cancel,
  };
}

/**
 * The proxy's own answer to the job, then the tunnel's end: once the answer is flushed through the job's TLS, or
 * after ANSWER_FLUSH_MS at most. Ended at once, the tunnel's finish destroyed the socket under TLS with the
 * answer still queued, and the job read an empty reply (curl 52) instead of why (1 run in 3, measured). Nothing
 * more of the upstream is read meanwhile.
 */
/**
 * Job sides being ended with a last answer (endThenFinish): nothing more is written to them — a write after end
 * destroys the socket at once, and the answer queued before it with it — and their upstream is not resumed.
 */
const ending = new WeakSet<Socket>();

function endThenFinish(job: Socket, upstream: Socket, answer: Buffer | string, t: SecretTunnel): void {
  if (ending.has(job)) return;
  ending.add(job);
  upstream.pause();
  const timer = setTimeout(() => t.finish(), ANSWER_FLUSH_MS);
  timer.unref();
  job.end(answer, () => {
    clearTimeout(timer);
    t.finish();
  });
}

const ANSWER_FLUSH_MS = 2000;

type Mode =
  | { kind: 'head' }
  | { kind: 'body'; left: number }
  | { kind: 'collect'; left: number; head: string; parts: Buffer[]; substitutions: number }
  | { kind: 'opaque' };

/** How many times `placeholder` occurs in `text`. */
function countOf(text: string, placeholder: string): number {
  return text.split(placeholder).length - 1;
}

/** The job's decrypted requests, one head at a time; see the file's comment for what each part may carry. */
function relayRequests(job: TLSSocket, upTls: TLSSocket, t: SecretTunnel, sent: Exchange): void {
  let buffered: Buffer = Buffer.alloc(0);
  let mode: Mode = { kind: 'head' };
  let scanner = new PlaceholderScanner(t.secrets);
  let done = false;
  let collectHeaders: Array<[string, string]> = [];
  const mine = (s: JobSecret) => secretIsFor(s, t.host, t.port);
  const block = (name: string, why = `a secret placeholder (${name}) may go only to its own host`) => {
    done = true;
    t.blocked(name, false);
    endThenFinish(job, upTls, forbidden(why), t);
  };
  const refuse = (why: string) => {
    done = true;
    endThenFinish(job, upTls, `HTTP/1.1 400 Bad Request\r\nContent-Length: ${why.length + 1}\r\nConnection: close\r\n\r\n${why}\n`, t);
  };
  /** More placeholders in one request than the proxy replaces (SUBSTITUTIONS_PER_REQUEST_MAX): refused before any value is written, recorded. */
  const overSubstituted = (count: number): boolean => {
    if (count <= SUBSTITUTIONS_PER_REQUEST_MAX) return false;
    t.requestRefused(`more than ${SUBSTITUTIONS_PER_REQUEST_MAX} secret placeholders`);
    refuse(
      `headspace egress proxy: a request may have at most ${SUBSTITUTIONS_PER_REQUEST_MAX} secret placeholders replaced (head and body together); it had ${count}`,
    );
    return true;
  };
  const send = (bytes: Buffer | string) => {
    // Heads are latin1 text here (each char one byte, as they came), so a value's UTF-8 bytes go as they are.
    if (!upTls.write(typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes)) job.pause();
  };
  upTls.on('drain', () => job.resume());
  /** A piece of a body or an opaque stream: blocked on another host's placeholder, else sent. */
  const passScanned = (chunk: Buffer): boolean => {
    const foreign = scanner.push(chunk).find((s) => !mine(s));
    if (foreign) {
      block(foreign.name);
      return false;
    }
    send(chunk);
    return true;
  };
  const onHead = (headText: string): boolean => {
    const parsed = parseHead(headText);
    if (!parsed) {
      refuse('malformed request head');
      return false;
    }
    const found = placeholdersIn(t.secrets, headText);
    const foreign = found.find((s) => !mine(s));
    if (foreign) {
      block(foreign.name);
      return false;
    }
    // Domain fronting (red team): a value goes only in a request whose target and Host name the tunnel's own
    // host, and never in Host itself — a front end routing by Host would hand it to another origin.
    const own = found.find((s) => mine(s));
    if (own) {
      const elsewhere = requestElsewhere(parsed.target, parsed.headers, t.host, t.port);
      if (elsewhere !== null) {
        block(own.name, `a secret placeholder (${own.name}) goes only in a request to ${t.host} itself: ${elsewhere}`);
        return false;
      }
    }
    const inHead = found.reduce((n, s) => n + parsed.headers.reduce((m, [, v]) => m + countOf(v, s.placeholder), 0), 0);
    if (overSubstituted(inHead)) return false;
    const substituted = parsed.headers.map(([n, v]): [string, string] => {
      let value = v;
      for (const s of found)
        if (value.includes(s.placeholder)) {
          value = value.split(s.placeholder).join(latin1(s.value));
          t.substituted(s.name);
        }
      return [n, value];
    });
    // A compressed response cannot be scanned for a reflected value, and one is refused on every tunnel of a job
    // with secrets (egress-response-redact.ts): so no host is asked for one.
    const headers: Array<[string, string]> = [...substituted.filter(([n]) => n.toLowerCase() !== 'accept-encoding'), ['Accept-Encoding', 'identity']];
    sent.methods.push(parsed.method);
    const lengths = headers.filter(([n]) => n.toLowerCase() === 'content-length');
    const chunked = headers.some(([n]) => n.toLowerCase() === 'transfer-encoding');
    const upgrade = headers.some(([n]) => n.toLowerCase() === 'upgrade');
    if (lengths.length > 1 || (lengths.length === 1 && (chunked || !/^\d{1,15}$/.test(lengths[0]![1])))) {
      refuse('ambiguous request framing');
      return false;
    }
    scanner = new PlaceholderScanner(t.secrets);
    const line = `${parsed.method} ${parsed.target} ${parsed.version}`;
    if (chunked || upgrade) {
      // Not parsed past this head: the upstream closes after its answer, and the rest is only scanned.
      const kept = headers.filter(([n]) => n.toLowerCase() !== 'connection');
      send(serialise(line, [...kept, ['Connection', upgrade ? 'Upgrade' : 'close']]));
      mode = { kind: 'opaque' };
      return true;
    }
    const length = lengths.length === 1 ? Number(lengths[0]![1]) : 0;
    const substitutes = t.secrets.some((s) => s.body && mine(s));
    if (length > 0 && substitutes && length <= SECRET_BODY_MAX_BYTES) {
      mode = { kind: 'collect', left: length, head: line, parts: [], substitutions: inHead };
      collectHeaders = headers;
      return true;
    }
    send(serialise(line, headers));
    mode = length > 0 ? { kind: 'body', left: length } : { kind: 'head' };
    return true;
  };
  const pump = () => {
    while (!done && buffered.length > 0) {
      if (mode.kind === 'head') {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buffered.length > t.headBytes) refuse('request head too large');
          return;
        }
        if (end + 4 > t.headBytes) return refuse('request head too large');
        const headText = buffered.subarray(0, end).toString('latin1');
        buffered = buffered.subarray(end + 4);
        if (!onHead(headText)) return;
      } else if (mode.kind === 'body' || mode.kind === 'collect') {
        const piece = buffered.subarray(0, mode.left);
        buffered = buffered.subarray(piece.length);
        mode.left -= piece.length;
        if (mode.kind === 'body') {
          if (!passScanned(piece)) return;
          if (mode.left === 0) mode = { kind: 'head' };
        } else {
          mode.parts.push(piece);
          if (mode.left === 0) {
            if (!sendCollected(mode.head, Buffer.concat(mode.parts), mode.substitutions)) return;
            mode = { kind: 'head' };
          }
        }
      } else {
        const chunk = buffered;
        buffered = Buffer.alloc(0) as Buffer;
        if (!passScanned(chunk)) return;
      }
    }
  };
  /** An opted-in body, whole: another host's placeholder blocks it; this host's become values, and Content-Length follows. */
  const sendCollected = (line: string, body: Buffer, inHead: number): boolean => {
    const text = body.toString('latin1');
    const found = placeholdersIn(t.secrets, text);
    const foreign = found.find((s) => !mine(s));
    if (foreign) {
      block(foreign.name);
      return false;
    }
    let out = body;
    const optedIn = found.filter((s) => s.body);
    if (overSubstituted(optedIn.reduce((n, s) => n + countOf(text, s.placeholder), inHead))) return false;
    if (optedIn.length > 0) {
      let replaced = text;
      for (const s of optedIn) {
        replaced = replaced.split(s.placeholder).join(latin1(s.value));
        t.substituted(s.name);
      }
      out = Buffer.from(replaced, 'latin1');
    }
    const headers = collectHeaders.map(([n, v]): [string, string] => (n.toLowerCase() === 'content-length' ? [n, String(out.length)] : [n, v]));
    send(Buffer.concat([Buffer.from(serialise(line, headers), 'latin1'), out]));
    return true;
  };
  job.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    pump();
  });
}

/** A value as the latin1 text of its UTF-8 bytes: how a head is held here. */
function latin1(value: string): string {
  return Buffer.from(value, 'utf8').toString('latin1');
}

function serialise(line: string, headers: ReadonlyArray<readonly [string, string]>): string {
  return `${line}\r\n${headers.map(([n, v]) => `${n}: ${v}\r\n`).join('')}\r\n`;
}

function badGateway(why: string): string {
  const body = `headspace egress proxy: the upstream's response was refused: ${why} (a secret's value could not be kept from the job)\n`;
  return `HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

function forbidden(why: string): string {
  const body = `headspace egress proxy: ${why}\n`;
  return `HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Why a request on a tunnel to host:port is addressed elsewhere, or null: the target must be origin-form
 * (or `*`), there must be exactly one Host header naming the tunnel's host (and its port, when it names one),
 * and Host must not carry a placeholder.
 */
export function requestElsewhere(target: string, headers: ReadonlyArray<readonly [string, string]>, host: string, port: number): string | null {
  if (!target.startsWith('/') && target !== '*') return 'an absolute-form request target is refused';
  const hosts = headers.filter(([n]) => n.toLowerCase() === 'host').map(([, v]) => v.trim().toLowerCase());
  if (hosts.length !== 1) return 'the request needs exactly one Host header';
  const value = hosts[0]!;
  if (value.includes('hs-secret-')) return 'a placeholder is never put in Host';
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(value);
  const plain = /^([^:[\]]+)(?::(\d+))?$/.exec(value);
  const named = bracket ?? plain;
  const want = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (!named || named[1] !== want) return `Host names ${JSON.stringify(value.slice(0, 80))}`;
  if (named[2] !== undefined && Number(named[2]) !== port) return `Host names port ${named[2]}`;
  return null;
}
