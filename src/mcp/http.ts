/**
 * `headspace mcp --http`: Streamable HTTP at /mcp, one MCP session per client.
 *
 * Guards, in order, before the SDK sees a request:
 *  1. Host: when bound to loopback (the default), the Host header must name a
 *     loopback address, so a DNS-rebound web page cannot reach us (403).
 *  2. Origin: a request that carries one must come from a loopback origin
 *     (403), as the MCP spec requires against DNS rebinding; a web page
 *     elsewhere cannot drive the tools even when the Host check is off.
 *  3. Path: only /mcp (404).
 *  4. Bearer token: `Authorization: Bearer <token>`, compared in constant
 *     time; anything else is 401 with `WWW-Authenticate: Bearer`.
 * The token comes from HEADSPACE_MCP_TOKEN or is generated; it is never taken
 * from argv (argv is visible to every local user through ps).
 *
 * Binding beyond loopback is refused unless `allowRemote` acknowledges it
 * (before, `--host 0.0.0.0` silently turned the Host check off). Sessions are
 * capped (`maxSessions`, 503 past it) and one idle for `sessionIdleSeconds`
 * (no request in flight, no stream open) is closed and forgotten, freeing its
 * server and event store. Each session keeps a bounded event store
 * (event-store.ts), so a client whose stream dropped resumes with
 * Last-Event-ID and still gets a long run's result (#12 item 21).
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EngineError } from '../core/errors.js';
import { createEventStore } from './event-store.js';
import {
  bearerCheck,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  foreignRequestReason,
  isLoopback,
  LISTENER_OPTIONS,
  listenRefusal,
  MAX_CONNECTIONS,
} from './loopback.js';
import { createMcpServer, type EngineFactory, type HeadspaceMcpServer, type McpServerOptions } from './server.js';

export const MCP_PATH = '/mcp';
const MIN_TOKEN_LENGTH = 16;

export const DEFAULT_MAX_SESSIONS = 16;
export const DEFAULT_SESSION_IDLE_SECONDS = 1800;
/** What a client is told to wait before reconnecting a dropped stream (the SSE retry field). */
const RETRY_INTERVAL_MS = 2000;

export interface HttpOptions extends McpServerOptions {
  host?: string;
  port?: number;
  /** Required to bind an address that is not loopback: the bearer token is then the only guard, sent in clear text. */
  allowRemote?: boolean;
  /** Sessions at once (default 16); an initialize past it is 503. */
  maxSessions?: number;
  /** A session with nothing in flight for this long is closed (default 1800). */
  sessionIdleSeconds?: number;
  /** The bearer token; default HEADSPACE_MCP_TOKEN from `env`, else a fresh random one. */
  token?: string;
  env?: NodeJS.ProcessEnv;
}

export interface RunningHttpServer {
  url: string;
  host: string;
  port: number;
  token: string;
  /** True when the token was generated here (the caller prints it). */
  tokenGenerated: boolean;
  /** Stops accepting, closes every session (in-flight calls end) and resolves when all settled. */
  close(): Promise<void>;
}

export function resolveToken(explicit: string | undefined, env: NodeJS.ProcessEnv): { token: string; generated: boolean } {
  const given = explicit ?? env.HEADSPACE_MCP_TOKEN;
  if (given === undefined || given === '') return { token: randomBytes(32).toString('base64url'), generated: true };
  if (given.length < MIN_TOKEN_LENGTH || /\s/.test(given)) {
    throw new EngineError('BAD_ARGUMENT', `HEADSPACE_MCP_TOKEN must be at least ${MIN_TOKEN_LENGTH} characters without spaces`, {
      hint: 'unset it to get a generated token, or use e.g. `openssl rand -hex 32`',
    });
  }
  return { token: given, generated: false };
}

export async function startHttpServer(engineFactory: EngineFactory, options: HttpOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_HTTP_HOST;
  if (!isLoopback(host) && options.allowRemote !== true) {
    throw new EngineError(
      'BAD_ARGUMENT',
      `--host ${host.slice(0, 60)} is not a loopback address: the server would be reachable beyond this machine, with only the bearer token, in clear text, as a guard`,
      {
        hint: 'keep the default 127.0.0.1 (use an SSH tunnel or a TLS proxy to reach it), or add --allow-remote to accept the risk',
      },
    );
  }
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const idleMs = (options.sessionIdleSeconds ?? DEFAULT_SESSION_IDLE_SECONDS) * 1000;
  const { token, generated } = resolveToken(options.token, options.env ?? process.env);
  const authorized = bearerCheck(token);
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const checkHost = isLoopback(host);
  const sessions = new Map<string, Session>();
  const pending = new Set<HeadspaceMcpServer>();

  function expire(id: string, session: Session): Promise<void> {
    sessions.delete(id);
    return session.hs.close();
  }
  /** Closes every session idle past the bound; returns how many. */
  function sweep(): number {
    const now = Date.now();
    let closed = 0;
    for (const [id, session] of sessions) {
      if (session.active === 0 && now - session.lastSeen >= idleMs) {
        closed++;
        expire(id, session).catch((error: unknown) => log(`headspace mcp: closing idle session failed: ${String(error)}`));
      }
    }
    return closed;
  }
  const sweeper = setInterval(sweep, Math.max(250, Math.min(60_000, idleMs / 2)));
  sweeper.unref();

  /** The request target's path, or null when it is not a URL at all (answered 404, never thrown). */
  function pathOf(target: string | undefined): string | null {
    try {
      return new URL(target ?? '/', 'http://localhost').pathname;
    } catch {
      return null;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const foreign = foreignRequestReason(req.headers, checkHost);
    if (foreign !== null) return refuse(res, 403, foreign);
    // The token first: nothing of a request is parsed for a caller without it (a malformed target used to
    // throw in URL parsing and print a stack with host paths, red team round 3). Constant-time digest compare.
    if (!authorized(req.headers.authorization)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="headspace"');
      return refuse(res, 401, "unauthorized: send Authorization: Bearer <token> (printed on the server's stderr, or HEADSPACE_MCP_TOKEN)");
    }
    if (pathOf(req.url) !== MCP_PATH) return refuse(res, 404, `not found; the MCP endpoint is ${MCP_PATH}`);
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) return refuse(res, 404, 'unknown or expired session; initialize again');
      // A session with a request in flight or a stream open is never idle.
      session.active++;
      session.lastSeen = Date.now();
      res.once('close', () => {
        session.active--;
        session.lastSeen = Date.now();
      });
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return refuse(res, 400, 'no session: start with an initialize request (POST)');
    const body = await readJson(req);
    if (!isInitializeRequest(body)) return refuse(res, 400, 'no session: start with an initialize request');
    if (sessions.size + pending.size >= maxSessions && sweep() === 0) {
      res.setHeader('Retry-After', String(Math.ceil(idleMs / 1000)));
      return refuse(
        res,
        503,
        `too many sessions (${maxSessions}); end one (DELETE ${MCP_PATH} with its mcp-session-id) or wait until one has been idle ${idleMs / 1000} s`,
      );
    }
    // Over HTTP the client is whoever holds the token: its roots never reach past the server's own (host-roots.ts).
    const hs = createMcpServer(engineFactory, { ...options, boundClientRoots: true });
    pending.add(hs);
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: createEventStore(),
      retryInterval: RETRY_INTERVAL_MS,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, hs, active: 0, lastSeen: Date.now() });
        pending.delete(hs);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await hs.connect(transport);
    await transport.handleRequest(req, res, body);
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
      pending.delete(hs);
      await hs.close();
    }
  }

  const server = createServer(LISTENER_OPTIONS, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`headspace mcp: request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) refuse(res, error instanceof BodyError ? 400 : 500, error instanceof BodyError ? error.message : 'internal error');
      else res.end();
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenRefusal(host, options.port ?? DEFAULT_HTTP_PORT, error, ' or --host')));
    server.listen(options.port ?? DEFAULT_HTTP_PORT, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${address.port}${MCP_PATH}`,
    host: address.address,
    port: address.port,
    token,
    tokenGenerated: generated,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper);
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.allSettled([...[...sessions.values()].map((s) => s.hs.close()), ...[...pending].map((hs) => hs.close())]);
        server.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

interface Session {
  transport: StreamableHTTPServerTransport;
  hs: HeadspaceMcpServer;
  /** Requests in flight and streams open on this session. */
  active: number;
  lastSeen: number;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function refuse(res: ServerResponse, status: number, message: string): void {
  // A caller without the token (401) or from a foreign page (403) keeps no connection: kept alive, 256 of them asking
  // every few seconds held every slot (red team round 2).
  const close = status === 401 || status === 403 ? { connection: 'close' } : {};
  res.writeHead(status, { 'content-type': 'application/json', ...close });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: status === 401 ? -32001 : -32000, message }, id: null }));
}

class BodyError extends Error {}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BodyError(`request body larger than ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new BodyError('request body is not JSON');
  }
}
