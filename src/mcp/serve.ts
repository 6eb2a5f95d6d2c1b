/**
 * What `headspace mcp [--http] [--port N] [--host H]` runs. Long-running: the
 * returned promise settles only when the server is done (stdin closed, or
 * SIGINT/SIGTERM), because the bin exits as soon as main() resolves.
 * Diagnostics (the URL, the token) go to stderr; stdout is the protocol
 * channel in stdio mode and stays empty in HTTP mode.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { EngineError } from '../core/errors.js';
import { describeRoots, fallbackRoots } from './host-roots.js';
import { DEFAULT_HTTP_PORT, isLoopback, parsePort } from './loopback.js';
import type { EngineFactory } from './server.js';
import { TOOLS } from './tools/index.js';
import { selectTools } from './tools/select-tools.js';

export interface ServeOptions {
  engineFactory: EngineFactory;
  http: boolean;
  /** Raw --port and --host values, validated here. */
  port?: string;
  host?: string;
  /** --allow-remote: accept a --host beyond loopback. */
  allowRemote?: boolean;
  /** --max-sessions and --session-idle-seconds, already parsed. */
  maxSessions?: number;
  sessionIdleSeconds?: number;
  maxResultBytes?: number;
  maxStructuredBytes?: number;
  /** Raw --root values: the host folders tools may read and write when the client offers no roots. */
  roots?: readonly string[];
  /** The server's working directory (the default root, unless it is `/`); default process.cwd(). */
  cwd?: string;
  /** Raw --tools value: the tools and sets to serve (select-tools.ts); every tool when absent. */
  tools?: string;
  env: NodeJS.ProcessEnv;
  stderr: NodeJS.WritableStream;
}

export async function serveMcp(options: ServeOptions): Promise<number> {
  const httpOnly = {
    port: options.port,
    host: options.host,
    allowRemote: options.allowRemote,
    maxSessions: options.maxSessions,
    sessionIdleSeconds: options.sessionIdleSeconds,
  };
  if (!options.http && Object.values(httpOnly).some((v) => v !== undefined)) {
    throw new EngineError('BAD_ARGUMENT', '--port, --host, --allow-remote, --max-sessions and --session-idle-seconds apply only with --http', {
      hint: 'run `headspace mcp --http --port 7340`, or plain `headspace mcp` for stdio',
    });
  }
  const port = options.port === undefined ? DEFAULT_HTTP_PORT : parsePort(options.port);
  const cwd = options.cwd ?? process.cwd();
  for (const root of options.roots ?? []) checkRootFlag(root, cwd);
  const roots = fallbackRoots(options.roots ?? [], cwd);
  const tools = options.tools === undefined ? undefined : selectTools(TOOLS, options.tools);
  // Fail fast on a bad --provider or an unusable store, before a client connects.
  const probe = await options.engineFactory();
  probe.close();

  const log = (line: string) => void options.stderr.write(`${line}\n`);
  const serverOptions = {
    log,
    fallbackRoots: roots,
    cwd,
    ...(tools === undefined ? {} : { tools }),
    ...(options.maxResultBytes === undefined ? {} : { maxResultBytes: options.maxResultBytes }),
    ...(options.maxStructuredBytes === undefined ? {} : { maxStructuredBytes: options.maxStructuredBytes }),
  };
  // Said once at start, so an operator sees what a model may touch on the host.
  log(
    `headspace mcp: host paths (put, export, run inputs, create hostPaths) are limited to the client's roots when it offers them${roots.origin === 'flag' ? ' (narrowed to --root, a ceiling they cannot widen)' : options.http ? ' (narrowed to the folder below, a ceiling they cannot widen over HTTP)' : ''}, otherwise ${describeRoots(roots)}`,
  );
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (!options.http) {
      const { serveStdio } = await import('./stdio.js');
      await serveStdio(options.engineFactory, { ...serverOptions, stop: stop.signal });
      return 0;
    }
    const { startHttpServer } = await import('./http.js');
    const running = await startHttpServer(options.engineFactory, {
      ...serverOptions,
      port,
      env: options.env,
      ...(options.host === undefined ? {} : { host: options.host }),
      ...(options.allowRemote === undefined ? {} : { allowRemote: options.allowRemote }),
      ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
      ...(options.sessionIdleSeconds === undefined ? {} : { sessionIdleSeconds: options.sessionIdleSeconds }),
    });
    log(`headspace mcp: serving Streamable HTTP at ${running.url}`);
    if (!isLoopback(running.host))
      log(
        `headspace mcp: warning (--allow-remote): listening on ${running.host}, beyond this machine; the bearer token is the only guard and plain HTTP carries it in clear text`,
      );
    if (running.tokenGenerated) log(`headspace mcp: bearer token (generated; set HEADSPACE_MCP_TOKEN to choose one): ${running.token}`);
    else log('headspace mcp: bearer token: from HEADSPACE_MCP_TOKEN');
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    log('headspace mcp: stopping');
    await running.close();
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function checkRootFlag(root: string, cwd: string): void {
  let isDirectory = false;
  try {
    isDirectory = statSync(resolve(cwd, root)).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDirectory)
    throw new EngineError('BAD_ARGUMENT', `--root ${root} is not an existing directory`, {
      hint: 'name a folder the server may read and write host files under, e.g. --root ~/project',
    });
}
