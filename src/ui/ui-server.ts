/**
 * The dashboard's HTTP server (#21): the page's three files and a JSON API
 * over the engine, on loopback only.
 *
 * Guards, the MCP HTTP face's own (mcp/loopback.ts), before anything else:
 *  1. Host must name a loopback address (DNS rebinding), Origin if sent must
 *     be a loopback origin (another site driving the person's browser): 403.
 *  2. Every /api/ request carries `Authorization: Bearer <token>`, the token
 *     printed in the page's URL, compared in constant time: 401. The page's
 *     three files carry no data and need none.
 *  3. Actions (POST) are 403 unless the server runs with --allow-actions.
 * Every response forbids framing and inline script (CSP), so even markup that
 * slipped into the DOM could not run; the page builds its DOM with textContent.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { EngineError, type Engine } from '../api/index.js';
import { bearerCheck, DEFAULT_HTTP_HOST, foreignRequestReason, LISTENER_OPTIONS, listenRefusal, MAX_CONNECTIONS } from '../mcp/loopback.js';
import { GET_ROUTES, POST_ROUTES, type RouteContext } from './ui-routes.js';

export const DEFAULT_UI_PORT = 7341;
const MAX_BODY_BYTES = 64 * 1024;

/** The page's files, shipped in the package (assets/ui/), read once at start. */
const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

export interface UiServerOptions {
  engine: Engine;
  port?: number;
  allowActions?: boolean;
  exportDir: string;
  log?: (line: string) => void;
}

export interface RunningUi {
  /** The page's address with its token: what the person opens. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

export async function startUiServer(options: UiServerOptions): Promise<RunningUi> {
  const assetsDir = fileURLToPath(new URL('../../assets/ui/', import.meta.url));
  const assets = Object.fromEntries(Object.entries(ASSETS).map(([path, a]) => [path, { body: readFileSync(assetsDir + a.file), type: a.type }]));
  const token = randomBytes(32).toString('base64url');
  const authorized = bearerCheck(token);
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const context: RouteContext = { engine: options.engine, allowActions: options.allowActions === true, exportDir: options.exportDir };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const foreign = foreignRequestReason(req.headers, true);
    if (foreign !== null) return send(res, 403, { error: { code: 'FORBIDDEN', message: foreign } });
    const url = new URL(req.url ?? '/', 'http://localhost');
    const asset = req.method === 'GET' ? assets[url.pathname] : undefined;
    if (asset) {
      res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.type });
      return void res.end(asset.body);
    }
    if (!authorized(req.headers.authorization)) return send(res, 401, { error: { code: 'UNAUTHORIZED', message: 'open the URL `headspace ui` printed' } });
    const get = req.method === 'GET' ? GET_ROUTES[url.pathname] : undefined;
    if (get) return send(res, 200, await get(context, url.searchParams));
    const post = req.method === 'POST' ? POST_ROUTES[url.pathname] : undefined;
    if (!post) return send(res, 404, { error: { code: 'NOT_FOUND', message: 'no such page or request' } });
    if (!context.allowActions)
      return send(res, 403, { error: { code: 'ACTIONS_DISABLED', message: 'actions are off: restart with `headspace ui --allow-actions`' } });
    const body = await readJson(req);
    log(`headspace ui: action ${url.pathname.slice('/api/actions/'.length)} confirmed in the page`);
    return send(res, 200, await post(context, body));
  }

  const server = createServer(LISTENER_OPTIONS, (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof EngineError) {
        const status = error.category === 'user_error' ? 400 : 409;
        return send(res, status, { error: { code: error.code, message: error.message, hint: error.hint, category: error.category } });
      }
      log(`headspace ui: request failed: ${error instanceof Error ? error.message : String(error)}`);
      send(res, 500, { error: { code: 'INTERNAL', message: 'internal error (see the server’s stderr)' } });
    });
  });
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenRefusal(DEFAULT_HTTP_HOST, options.port ?? DEFAULT_UI_PORT, error, '')));
    server.listen(options.port ?? DEFAULT_UI_PORT, DEFAULT_HTTP_HOST, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${DEFAULT_HTTP_HOST}:${port}/#token=${token}`,
    port,
    token,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function send(res: ServerResponse, status: number, value: unknown): void {
  if (res.headersSent) return void res.end();
  // As the MCP server's refusals: a caller without the token keeps no connection (mcp/http.ts refuse).
  const close = status === 401 || status === 403 ? { connection: 'close' } : {};
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', ...close });
  res.end(JSON.stringify(value));
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new EngineError('BAD_ARGUMENT', `request body larger than ${MAX_BODY_BYTES} bytes`, { hint: 'reload the page' });
    chunks.push(chunk);
  }
  try {
    const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new EngineError('BAD_ARGUMENT', 'request body is not a JSON object', { hint: 'reload the page' });
}
