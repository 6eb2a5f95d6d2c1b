/**
 * The host side of a job's network (#18): an HTTP proxy (CONNECT and plain
 * absolute-URI requests) and a SOCKS5 proxy on one unix socket, which the
 * provider exposes inside the sandbox. It lives exactly as long as one job's
 * run: the engine starts it before provider.run and closes it after.
 *
 * Everything arriving here comes from the job and is hostile. Every
 * resource is bounded (the constants below, stated in the README):
 * connections at once and in total, the request head's size and the time
 * to send it, idle time on a tunnel, connect time upstream. A request head
 * is parsed strictly (CRLF only, no folded lines, one Content-Length, no
 * Transfer-Encoding together with it) so a job cannot smuggle a second
 * request past the decision; whatever follows an allowed head goes only to
 * the upstream that was allowed. The job's name is checked against the
 * allow-list before any lookup; the address found is checked again
 * (allow-list.ts), and the proxy connects to that address, never re-resolving.
 */
import { mkdtempSync, chmodSync, chownSync, rmSync } from 'node:fs';
import { createServer, connect, isIP, type Server, type Socket } from 'node:net';
import { createSecureContext, type SecureContext } from 'node:tls';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkAddress, checkTarget, hostEvidence, ownAddressesOf, parsePattern, strictHost, type AllowPattern } from './allow-list.js';
import type { JobUser } from '../job-identity.js';
import { EgressLedger, NETWORK_CUT_REASON, type EgressDecision, type EgressVia } from './egress-ledger.js';
import { createResolver, type EgressResolver } from './egress-resolver.js';
import { HEADER_LINES, parseHead } from './egress-head.js';
import { LEAF_CACHE_MAX, LruCache, type WorkspaceCa } from './egress-ca.js';
import { interceptTunnel, relayScanned, type SecretTunnel } from './egress-intercept.js';
import { blockedReason, placeholdersIn, type JobSecret } from './egress-secrets.js';

export const EGRESS_LIMITS = Object.freeze({
  /** Connections from the job open at once; more are refused (503 / SOCKS failure) and recorded. */
  connectionsAtOnce: 64,
  /** Connections one job may open in all. */
  connectionsPerJob: 20_000,
  /** Bytes of a request head (request line + headers), the CONNECT line included. */
  headBytes: 16 * 1024,
  /** Header lines in a head. */
  headerLines: HEADER_LINES,
  /** Milliseconds to send a whole request head or SOCKS handshake (slowloris). */
  headTimeoutMs: 10_000,
  /** Milliseconds an established connection may stay silent both ways. */
  idleTimeoutMs: 120_000,
  /** Milliseconds to connect upstream. */
  connectTimeoutMs: 10_000,
});

export interface EgressProxyOptions {
  /** Normalised allow-list patterns (allow-list.ts parseAllowList). */
  allow: readonly string[];
  resolver?: EgressResolver;
  /**
   * The socket's private directory, made for this job (egress-dirs.ts makeEgressDir); removed on close.
   * Without it (tests), a fresh 0700 directory under the OS temp dir.
   */
  dir?: string;
  /** As root: the job's uid and gid, the only one (root aside) that may reach the socket (#18 F3). */
  owner?: JobUser;
  now?: () => number;
  /** Tighter bounds for tests; never looser than a caller chose. */
  limits?: Partial<EgressLimits>;
  /** The job's secrets (#18 item 3) and the workspace CA that terminates its TLS; none: tunnels are spliced blind. */
  secrets?: EgressSecrets;
  /** The job's network was cut for probing the secret redactor (cutNetwork): told at once, with the probing host, so it is recorded before the job ends. */
  onCut?: (at: number, host: string, port: number) => void;
}

export interface EgressSecrets {
  list: readonly JobSecret[];
  ca: WorkspaceCa;
  /** Roots an upstream certificate must chain to; undefined: Node's default roots (test mode adds a test CA, egress-session.ts). */
  upstreamCa: string[] | undefined;
  /** Made from upstreamCa on first use, then kept for the proxy's life. */
  upstreamContext?: SecureContext;
  /** Each host's job-side context (its leaf), made on first use, bounded like the leaves (LRU). */
  jobContexts?: LruCache<string, Promise<SecureContext>>;
}

function jobContext(secrets: EgressSecrets, host: string): Promise<SecureContext> {
  secrets.jobContexts ??= new LruCache(LEAF_CACHE_MAX);
  let context = secrets.jobContexts.get(host);
  if (context === undefined) {
    context = secrets.ca.leafFor(host).then((leaf) => createSecureContext({ cert: leaf.cert, key: leaf.key }));
    secrets.jobContexts.set(host, context);
    context.catch(() => secrets.jobContexts?.delete(host));
  }
  return context;
}

export type EgressLimits = { -readonly [K in keyof typeof EGRESS_LIMITS]: number };

export interface EgressProxy {
  /** Host path of the unix socket the provider exposes inside the sandbox. */
  socketPath: string;
  ledger: EgressLedger;
  resolver: EgressResolver;
  /** Stops accepting, ends every connection, removes the socket; idempotent. */
  close(): Promise<void>;
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const patterns = options.allow.map(parsePattern);
  const resolver = options.resolver ?? createResolver();
  const ledger = new EgressLedger();
  const now = options.now ?? Date.now;
  const limits: EgressLimits = { ...EGRESS_LIMITS, ...options.limits };
  // A private directory per job, 0700 and (as root) the job uid's: no other local user reaches the socket (#18 F3).
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'hs-egress-'));
  chmodSync(dir, 0o700);
  const socketPath = join(dir, 'egress.sock');
  const open = new Set<Socket>();
  const ctx: Context = {
    patterns,
    resolver,
    ledger,
    now,
    open,
    limits,
    closing: false,
    cut: false,
    ...(options.onCut === undefined ? {} : { onCut: options.onCut }),
    tunnels: new Set(),
    pending: new Set(),
    ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
  };
  let total = 0;
  const server: Server = createServer({ allowHalfOpen: true }, (client) => {
    // First, before any write (#18 F2): a job that resets a connection the proxy is answering makes that write fail
    // (EPIPE/ECONNRESET), and an 'error' event with no listener throws out of the event loop and kills the engine.
    client.on('error', () => client.destroy());
    total += 1;
    if (ctx.cut) {
      ledger.record({ at: now(), verdict: 'denied', host: '(any)', port: 0, via: 'http', reason: NETWORK_CUT_REASON, bytesUp: 0, bytesDown: 0 });
      reject(client, 403, `${NETWORK_CUT_REASON} (a probe of the redactor); this job reaches nothing more`);
      return;
    }
    if (open.size >= limits.connectionsAtOnce || total > limits.connectionsPerJob) {
      ledger.record({ at: now(), verdict: 'denied', host: '(any)', port: 0, via: 'http', reason: 'too many connections', bytesUp: 0, bytesDown: 0 });
      client.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      client.destroySoon();
      return;
    }
    open.add(client);
    client.on('close', () => open.delete(client));
    handleClient(client, ctx);
  });
  server.maxConnections = limits.connectionsAtOnce * 2;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  // Once listening, a server error (an accept failing under a flood) must not throw out of the process either (#18 F2).
  server.on('error', () => undefined);
  // The job's uid only: as root the socket is chowned to it, 0600; otherwise the job runs as ourselves.
  chmodSync(socketPath, 0o600);
  if (options.owner !== undefined && process.getuid?.() === 0) chownSync(socketPath, options.owner.uid, options.owner.gid);
  let closed: Promise<void> | null = null;
  return {
    socketPath,
    ledger,
    resolver,
    close() {
      // Settled here, synchronously, and never by a socket's 'close' event: the server's close callback
      // can run before its sockets' 'close' events, and the engine journals the ledger the moment this
      // resolves, so a tunnel recorded on 'close' was missing from a job that used it (#18).
      closed ??= new Promise<void>((resolve) => {
        ctx.closing = true;
        server.close(() => resolve());
        for (const pending of ctx.pending) settleUndecided(ctx, pending);
        for (const finish of [...ctx.tunnels]) finish();
        for (const s of open) s.destroy();
      })
        .then(() => options.secrets?.ca.close())
        .finally(() => rmSync(dir, { recursive: true, force: true }));
      return closed;
    },
  };
}

interface Context {
  patterns: AllowPattern[];
  resolver: EgressResolver;
  ledger: EgressLedger;
  now: () => number;
  open: Set<Socket>;
  limits: EgressLimits;
  /** Set by close(): a decision or tunnel arriving after it is settled at once, never left for later. */
  closing: boolean;
  /** The finish of every spliced tunnel not yet finished: close() runs each, so each is recorded with its bytes. */
  tunnels: Set<() => void>;
  /** Connections whose decision awaits a lookup or a connect: close() records each as denied (the job ended first). */
  pending: Set<Pending>;
  secrets?: EgressSecrets;
  /** Set at a job's first probe of the redactor (cutNetwork): from then on it reaches nothing. */
  cut: boolean;
  onCut?: (at: number, host: string, port: number) => void;
}

interface Pending {
  at: number;
  host: string;
  port: number;
  via: EgressVia;
  settled: boolean;
}

/** A connection the job ended before the proxy could decide on (or connect): recorded once, with no bytes. */
function settleUndecided(ctx: Context, pending: Pending): void {
  if (pending.settled) return;
  pending.settled = true;
  ctx.pending.delete(pending);
  const { at, host, port, via } = pending;
  ctx.ledger.record({ at, verdict: 'denied', host, port, via, reason: 'job ended first', bytesUp: 0, bytesDown: 0 });
}

type Target = { host: string; port: number; via: EgressVia };

function handleClient(client: Socket, ctx: Context): void {
  let buffered = Buffer.alloc(0);
  const headTimer = setTimeout(() => client.destroy(), ctx.limits.headTimeoutMs);
  // A job that half-closes before its head is complete will never send one: its slot is freed now, not at the
  // head timeout (half-open sockets are allowed for tunnels, so nothing else would end it sooner).
  const endedEarly = () => client.destroy();
  client.once('end', endedEarly);
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (buffered[0] === 0x05) {
      client.off('data', onData);
      client.pause();
      client.unshift(buffered);
      socks5(client, ctx, headTimer, () => client.off('end', endedEarly)).catch(() => client.destroy());
      return;
    }
    const end = buffered.indexOf('\r\n\r\n');
    if (end < 0 && buffered.length <= ctx.limits.headBytes) return;
    client.off('data', onData);
    client.off('end', endedEarly);
    client.pause();
    clearTimeout(headTimer);
    if (end < 0 || end + 4 > ctx.limits.headBytes) return malformed(client, ctx, 431, 'request head too large');
    // Nothing a job sends may throw out of the proxy (#18 F2): a failure handling one request ends that request only.
    httpRequest(client, ctx, buffered.subarray(0, end).toString('latin1'), buffered.subarray(end + 4)).catch(() => client.destroy());
  };
  client.on('data', onData);
  client.on('close', () => clearTimeout(headTimer));
}

/** A request that never got as far as a decision: refused, and counted as a denial (nothing of it is kept). */
function malformed(client: Socket, ctx: Context, status: number, why: string): void {
  ctx.ledger.record({ at: ctx.now(), verdict: 'denied', host: '(malformed request)', port: 0, via: 'http', reason: 'bad request', bytesUp: 0, bytesDown: 0 });
  reject(client, status, why);
}

function reject(client: Socket, status: number, why: string): void {
  if (client.destroyed) return;
  const text = STATUS_TEXT[status] ?? 'Error';
  const body = `headspace egress proxy: ${why}\n`;
  client.end(`HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  // Half-open sockets are allowed (a tunnel needs them); a refused one must not hold its slot until the job closes it.
  client.once('finish', () => client.destroy());
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export { parseHead } from './egress-head.js';

async function httpRequest(client: Socket, ctx: Context, head: string, rest: Buffer): Promise<void> {
  const parsed = parseHead(head);
  if (!parsed) return malformed(client, ctx, 400, 'malformed request head');
  if (parsed.method === 'CONNECT') {
    const hostPort = splitHostPort(parsed.target);
    if (!hostPort) return malformed(client, ctx, 400, 'CONNECT takes host:port');
    const upstream = await decide(ctx, { ...hostPort, via: 'http-connect' });
    if ('denied' in upstream) return reject(client, upstream.status, upstream.denied);
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    return splice(client, upstream.socket, rest, ctx, upstream.decision, true);
  }
  // Plain HTTP: only an absolute http:// URI (a proxy request); https:// goes through CONNECT.
  const url = /^http:\/\/(\[[0-9A-Fa-f:.]+\]|[^/:?#@\s]+)(?::(\d{1,5}))?([/?][^\s#]*)?$/.exec(parsed.target);
  if (!url) return malformed(client, ctx, 400, 'a proxy request needs an absolute http:// URL (use CONNECT for https)');
  const lengths = parsed.headers.filter(([n]) => n.toLowerCase() === 'content-length');
  const chunked = parsed.headers.some(([n]) => n.toLowerCase() === 'transfer-encoding');
  // Two framings at once is the classic smuggling shape: refused, never guessed.
  if (lengths.length > 1 || (lengths.length === 1 && chunked) || (lengths.length === 1 && !/^\d{1,15}$/.test(lengths[0]![1])))
    return malformed(client, ctx, 400, 'ambiguous request framing');
  const host = url[1]!;
  const port = url[2] === undefined ? 80 : Number(url[2]);
  // Plain text is never substituted (#18 item 3): the value would cross the network readable. A placeholder in the head is blocked before any decision.
  const carried = ctx.secrets === undefined ? [] : placeholdersIn(ctx.secrets.list, head);
  if (carried.length > 0) {
    const shownHost = strictHost(host) ?? hostEvidence(host);
    ctx.ledger.record({
      at: ctx.now(),
      verdict: 'denied',
      host: shownHost,
      port,
      via: 'http',
      reason: blockedReason(carried[0]!.name, true),
      bytesUp: 0,
      bytesDown: 0,
    });
    return reject(client, 403, 'a secret placeholder over plain HTTP is never sent: use https:// (the value is substituted only over TLS)');
  }
  const upstream = await decide(ctx, { host, port, via: 'http' });
  if ('denied' in upstream) return reject(client, upstream.status, upstream.denied);
  const path = url[3] === undefined ? '/' : url[3].startsWith('?') ? `/${url[3]}` : url[3];
  const kept = parsed.headers.filter(([n]) => !/^(host|connection|proxy-connection|proxy-authorization|keep-alive)$/i.test(n));
  const hostHeader = port === 80 ? host : `${host}:${port}`;
  // One request per connection: the upstream closes after it, so nothing pipelined behind it is read as another request.
  const out = [`${parsed.method} ${path} ${parsed.version}`, `Host: ${hostHeader}`, ...kept.map(([n, v]) => `${n}: ${v}`), 'Connection: close', '', ''].join(
    '\r\n',
  );
  upstream.socket.write(out, 'latin1');
  return splice(client, upstream.socket, rest, ctx, upstream.decision, false);
}

function splitHostPort(target: string): { host: string; port: number } | null {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/@]+):(\d{1,5})$/.exec(target);
  return m ? { host: m[1]!, port: Number(m[2]) } : null;
}

type Upstream = { socket: Socket; decision: EgressDecision } | { denied: string; status: number; socksCode: number };

/** The decision for one connection: allow-list, then lookup, then the address's range; records it, allowed or denied. */
async function decide(ctx: Context, target: Target): Promise<Upstream> {
  const at = ctx.now();
  // Strict syntax before anything else (#18 F1): a host that is not an LDH name or an IP literal is never matched,
  // looked up or kept verbatim; the ledger keeps it escaped, so it shows exactly what the job sent and nothing it could forge.
  const valid = strictHost(target.host);
  const host = valid ?? hostEvidence(target.host);
  const deny = (reason: EgressDecision['reason'], status = 403, socksCode = 2): Upstream => {
    ctx.ledger.record({ at, verdict: 'denied', host, port: target.port, via: target.via, reason, bytesUp: 0, bytesDown: 0 });
    return { denied: `${host}:${target.port} denied (${reason})`, status, socksCode };
  };
  if (valid === null) return deny('malformed host', 400, 2);
  // Cut already: no lookup or connect is made for the job any more.
  if (ctx.cut) return deny(NETWORK_CUT_REASON);
  const named = checkTarget(ctx.patterns, host, target.port);
  if (!named.allowed) return deny(named.reason);
  // From here the decision awaits a lookup and a connect; close() may settle it first, and then it is recorded once, by close().
  const pending: Pending = { at, host, port: target.port, via: target.via, settled: false };
  const ended: Upstream = { denied: `${host}:${target.port} denied (job ended first)`, status: 503, socksCode: 1 };
  ctx.pending.add(pending);
  if (ctx.closing) {
    settleUndecided(ctx, pending);
    return ended;
  }
  const reached = await reach(ctx, host, target.port, named.matched, pending);
  if (pending.settled) {
    if ('socket' in reached) reached.socket.destroy();
    return ended;
  }
  pending.settled = true;
  ctx.pending.delete(pending);
  // The job's network was cut while this was being looked up or connected: refused with the reason, not ended
  // silently (curl read "Proxy CONNECT aborted" where the other calls after the cut read a 403).
  if (ctx.cut) {
    if ('socket' in reached) reached.socket.destroy();
    return deny(NETWORK_CUT_REASON);
  }
  if (!('socket' in reached)) return deny(reached.reason, reached.status, reached.socksCode);
  // Recorded the moment it is allowed; splice fills in its bytes when the tunnel ends or close() ends it.
  const decision: EgressDecision = { at, verdict: 'allowed', host, port: target.port, via: target.via, bytesUp: 0, bytesDown: 0 };
  ctx.ledger.record(decision);
  return { socket: reached.socket, decision };
}

type Reached = { socket: Socket } | { reason: NonNullable<EgressDecision['reason']>; status: number; socksCode: number };

/** Looks the name up (unless an IP-literal pattern named it), checks every answer's range, connects to the first; records nothing. */
async function reach(ctx: Context, host: string, port: number, matched: AllowPattern[], pending: Pending): Promise<Reached> {
  let address: string;
  if (matched.some((p) => p.ip !== 0)) address = host;
  else {
    let found;
    try {
      found = await ctx.resolver.resolve(host);
    } catch {
      return { reason: 'name did not resolve', status: 502, socksCode: 4 };
    }
    // IPv4 first: a host with an AAAA record and no IPv6 route must not read as unreachable.
    const first = [...found.addresses].sort((a, b) => Number(isIP(a) === 6) - Number(isIP(b) === 6))[0];
    if (first === undefined) return { reason: 'name did not resolve', status: 502, socksCode: 4 };
    // Every address must pass: a name answering one public and one private address is refused whole.
    if (!found.fromTestMap) {
      const own = hostOwnAddresses();
      for (const a of found.addresses) if (!checkAddress(ctx.patterns, a, port, own).allowed) return { reason: 'private address', status: 403, socksCode: 2 };
    }
    address = first;
  }
  // The job ended during the lookup: no connection is opened for it.
  if (pending.settled) return { reason: 'job ended first', status: 503, socksCode: 1 };
  // No Nagle: the proxy forwards what arrives as it arrives (a TLS flight in pieces would otherwise wait on delayed ACKs).
  const socket = connect({ host: address, port, allowHalfOpen: true, noDelay: true });
  // An 'error' listener the moment the upstream exists, for its whole life (#18 F2); the ones below only decide.
  socket.on('error', () => socket.destroy());
  ctx.open.add(socket);
  socket.on('close', () => ctx.open.delete(socket));
  const ok = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ctx.limits.connectTimeoutMs);
    const done = (connected: boolean) => {
      clearTimeout(timer);
      resolve(connected);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    // close() destroys a connect in flight: its decision must not wait out the connect timeout.
    socket.once('close', () => done(false));
  });
  if (!ok) {
    socket.destroy();
    return { reason: 'upstream unreachable', status: 502, socksCode: 5 };
  }
  return { socket };
}

/**
 * Relays both ways until both sides end (or either fails, or both stay silent too long, or close() ends it);
 * fills in the recorded decision's byte counts, once, when it finishes. A job with secrets (#18 item 3) never
 * gets a blind splice: its tunnels go through egress-intercept.ts, which must see the bytes.
 */
function splice(client: Socket, upstream: Socket, rest: Buffer, ctx: Context, decision: EgressDecision, tunnel: boolean): void {
  const headBytes = upstream.bytesWritten;
  const finish = () => {
    if (!ctx.tunnels.delete(finish)) return;
    decision.bytesUp = Math.max(0, upstream.bytesWritten - headBytes) + (decision.via === 'http' ? headBytes : 0);
    decision.bytesDown = upstream.bytesRead;
    client.destroy();
    upstream.destroy();
  };
  ctx.tunnels.add(finish);
  // close() already ran (the job ended while this was being decided), or the job's network was cut meanwhile: end it now, its bytes counted.
  if (ctx.closing || ctx.cut || client.destroyed) return finish();
  for (const s of [client, upstream]) {
    s.setTimeout(ctx.limits.idleTimeoutMs, finish);
    s.on('error', finish);
    s.on('close', finish);
  }
  const secrets = ctx.secrets;
  if (secrets !== undefined && secrets.list.length > 0) {
    const { host, port, via } = decision;
    const record = (reason: NonNullable<EgressDecision['reason']>) =>
      ctx.ledger.record({ at: ctx.now(), verdict: 'denied', host, port, via, reason, bytesUp: 0, bytesDown: 0 });
    const t: SecretTunnel = {
      host,
      port,
      secrets: secrets.list,
      upstreamContext: secrets.upstreamCa === undefined ? undefined : (secrets.upstreamContext ??= createSecureContext({ ca: secrets.upstreamCa })),
      jobContext: (name) => jobContext(secrets, name),
      headBytes: ctx.limits.headBytes,
      blocked: (name, plain) => record(blockedReason(name, plain)),
      upstreamRefused: (why) => record(`upstream TLS refused (${why.replace(/[^A-Z0-9_]/gi, '').slice(0, 40)})`),
      substituted: (name) => ctx.ledger.substituted(name, host),
      redacted: (name) => ctx.ledger.redacted(name, host),
      unscannable: (why) => record(`response refused (${why.replace(/[^a-z0-9 :-]/gi, '').slice(0, 60)})`),
      probed: () =>
        cutNetwork(
          ctx,
          () => {
            record(NETWORK_CUT_REASON);
            try {
              ctx.onCut?.(ctx.now(), host, port);
            } catch {
              // A store that cannot take the record now still gets it with the job's end (recordNetworkDecisions).
            }
          },
          finish,
        ),
      requestRefused: (why) => record(`request refused (${why.replace(/[^a-z0-9 :-]/gi, '').slice(0, 60)})`),
      finish,
    };
    // A plain HTTP request's own head was already checked (httpRequest); what follows it is scanned like any non-TLS stream.
    if (tunnel) interceptTunnel(client, upstream, rest, t);
    else relayScanned(client, upstream, rest, t);
    return;
  }
  if (rest.length > 0) upstream.write(rest);
  client.pipe(upstream);
  upstream.pipe(client);
  client.resume();
}

/** The host's interface addresses, read again at most once a second (an interface may come up while a job runs). */
function hostOwnAddresses(): ReadonlySet<string> {
  const now = Date.now();
  if (ownAddresses === null || now - ownAddresses.at > 1000) ownAddresses = { at: now, set: ownAddressesOf(networkInterfaces()) };
  return ownAddresses.set;
}
let ownAddresses: { at: number; set: Set<string> } | null = null;

/**
 * The job's first probe of the redactor (a response's end masked as a value's possible start, which the job may
 * have chosen through an echo): recorded once, then every other tunnel of the job is ended and every later
 * connection is refused; the probing tunnel ends once its masked answer is out. One masked end answers one
 * guess; the red team walked a value's whole 40 characters in 5,248 of them.
 */
function cutNetwork(ctx: Context, record: () => void, probing: () => void): void {
  if (ctx.cut) return;
  ctx.cut = true;
  record();
  // The probing tunnel is not among them: it ends itself once its masked answer is out (ended under TLS at once,
  // that answer was lost 1 run in 4, and the job read an error instead). The others end now, not a turn later:
  // their reads and quiet flushes in between could each carry one more masked answer (review, session 12).
  for (const finish of [...ctx.tunnels]) if (finish !== probing) finish();
}

async function socks5(client: Socket, ctx: Context, headTimer: NodeJS.Timeout, handshakeDone: () => void): Promise<void> {
  const reader = boundedReader(client);
  const fail = (code: number) => {
    clearTimeout(headTimer);
    client.end(Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]));
    client.once('finish', () => client.destroy());
  };
  try {
    const [version, count] = await reader.take(2);
    if (version !== 5 || count === 0) return void client.destroy();
    const methods = await reader.take(count!);
    if (!methods.includes(0)) return void client.end(Buffer.from([5, 0xff]), () => client.destroy());
    client.write(Buffer.from([5, 0]));
    const [, command, , kind] = await reader.take(4);
    let host: string;
    if (kind === 1) host = [...(await reader.take(4))].join('.');
    else if (kind === 3) host = (await reader.take((await reader.take(1))[0]!)).toString('latin1');
    else if (kind === 4) {
      const raw = await reader.take(16);
      host = Array.from({ length: 8 }, (_, i) => raw.readUInt16BE(i * 2).toString(16)).join(':');
    } else return fail(8);
    const portBytes = await reader.take(2);
    if (command !== 1) return fail(7); // CONNECT only: no BIND, no UDP ASSOCIATE
    const upstream = await decide(ctx, { host, port: portBytes.readUInt16BE(0), via: 'socks5' });
    if ('denied' in upstream) return fail(upstream.socksCode);
    clearTimeout(headTimer);
    handshakeDone();
    client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
    splice(client, upstream.socket, reader.rest(), ctx, upstream.decision, true);
  } catch {
    client.destroy();
  }
}

/** Reads exact byte counts from a paused socket; the head timer bounds the whole handshake. */
function boundedReader(socket: Socket) {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve: (b: Buffer) => void; reject: (e: Error) => void } | null = null;
  const pump = () => {
    if (waiting && buffered.length >= waiting.n) {
      const out = buffered.subarray(0, waiting.n);
      buffered = buffered.subarray(waiting.n);
      const w = waiting;
      waiting = null;
      socket.pause();
      w.resolve(out);
    }
  };
  const onData = (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    if (buffered.length > 1024) socket.destroy(); // a SOCKS5 handshake is at most 262 + 263 bytes
    pump();
  };
  socket.on('data', onData);
  socket.on('close', () => waiting?.reject(new Error('closed')));
  return {
    take(n: number): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        waiting = { n, resolve, reject };
        socket.resume();
        pump();
      });
    },
    rest(): Buffer {
      socket.off('data', onData);
      const out = buffered;
      buffered = Buffer.alloc(0);
      return out;
    },
  };
}
