/**
 * HTTP defaults and the guards every local HTTP face of headspace applies
 * (the MCP server's --http and the dashboard, #21), kept apart from http.ts
 * so stdio mode never loads the HTTP stack.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { EngineError } from '../core/errors.js';

export const DEFAULT_HTTP_HOST = '127.0.0.1';
export const DEFAULT_HTTP_PORT = 7340;

/**
 * Bounds on what a caller may hold before it shows a token (red team, host
 * surfaces: another local user held 20,000 connections open, trickling
 * header lines, until the server had no descriptor left for a real client).
 * Headers must arrive within 10 s (Node's default: 60 s), checked every
 * second; a whole request within 300 s (a 4 MiB body over a slow link; a
 * token is checked before any body is read, and a refused caller's
 * connection is closed, so a slow body needs the token); past
 * MAX_CONNECTIONS a new connection is closed at once, so the engine keeps
 * descriptors for its store, logs and jobs. A local user can still crowd
 * the port (see the README's "What is not covered").
 */
export const LISTENER_OPTIONS = { headersTimeout: 10_000, requestTimeout: 300_000, connectionsCheckingInterval: 1_000 } as const;
export const MAX_CONNECTIONS = 256;

/** localhost, ::1 or 127.x.y.z (brackets allowed). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** `Origin: null` (a sandboxed page) and anything unparsable are not loopback. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    const url = new URL(origin);
    return (url.protocol === 'http:' || url.protocol === 'https:') && isLoopback(url.hostname);
  } catch {
    return false;
  }
}

/**
 * Why a request must be refused before anything else looks at it (403), or
 * null: a Host that is not loopback when bound to loopback (a DNS-rebound web
 * page), or an Origin that is not a loopback origin (a web page elsewhere
 * driving us through the person's browser).
 */
export function foreignRequestReason(headers: IncomingHttpHeaders, checkHost: boolean): string | null {
  if (checkHost && !isLoopback(hostnameOf(headers.host))) return 'the Host header must name a loopback address';
  const origin = Array.isArray(headers.origin) ? headers.origin[0] : headers.origin;
  if (origin !== undefined && !isLoopbackOrigin(origin)) return 'the Origin must be a loopback origin (http://localhost, http://127.0.0.1, http://[::1])';
  return null;
}

/** A check of `Authorization: Bearer <token>` in constant time (both sides hashed, so lengths never leak). */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(`Bearer ${token}`);
  return (authorization) => timingSafeEqual(digest(authorization ?? ''), expected);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function hostnameOf(hostHeader: string | undefined): string {
  if (hostHeader === undefined) return '';
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(hostHeader);
  return match?.[1] ?? '';
}

/** A --port value: 0 (any free port) to 65535. */
export function parsePort(raw: string): number {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535)
    throw new EngineError('BAD_ARGUMENT', `--port takes a whole number from 0 to 65535, not '${raw.slice(0, 40)}'`, {
      hint: '0 picks a free port (the server prints the one it took)',
    });
  return Number(raw);
}

/**
 * Why a server (`ui`, `mcp --http`) could not listen. A port another process
 * holds is the host's state (PORT_IN_USE: environment_error, exit 2), not a bad
 * flag: the remedy names a free port and how to see who holds it (asking the
 * kernel here would cost a scan of every process's descriptors, so the hint
 * names the command instead).
 */
export function listenRefusal(host: string, port: number, error: NodeJS.ErrnoException, orElse: string): EngineError {
  const where = `${host}:${port}`;
  if (error.code === 'EADDRINUSE')
    return new EngineError('PORT_IN_USE', `cannot listen on ${where}: another process holds the port (EADDRINUSE)`, {
      hint: `choose another --port (0 picks a free one)${orElse}; \`ss -ltnp 'sport = :${port}'\` names the process that holds it (perhaps another headspace server). If it is not yours, a client set up for this port sends it its bearer token: give that client a new token along with the new port`,
    });
  return new EngineError('BAD_ARGUMENT', `cannot listen on ${where}: ${error.code ?? error.message}`, {
    hint: `choose another --port (0 picks a free one)${orElse}`,
  });
}
