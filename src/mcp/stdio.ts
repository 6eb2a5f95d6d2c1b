/**
 * `headspace mcp`: the server on stdin/stdout. stdout carries protocol
 * messages and nothing else, so while the server runs console.log/info/debug
 * are sent to stderr (a stray log line would corrupt the stream, house style
 * point 5). Resolves once stdin closes or the server is stopped, after every
 * in-flight call has settled (a running job is cancelled and recorded first).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Readable, Writable } from 'node:stream';
import { createMcpServer, type EngineFactory, type McpServerOptions } from './server.js';

export interface StdioOptions extends McpServerOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Resolving or aborting this stops the server (the CLI passes SIGINT/SIGTERM). */
  stop?: AbortSignal;
}

export async function serveStdio(engineFactory: EngineFactory, options: StdioOptions = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const restoreConsole = options.stdout === undefined ? divertConsoleToStderr() : () => {};
  const hs = createMcpServer(engineFactory, options);
  try {
    const closed = new Promise<void>((resolve) => {
      hs.server.server.onclose = resolve;
    });
    await hs.connect(new StdioServerTransport(stdin, stdout));
    const stopServer = () => void hs.close();
    stdin.once('end', stopServer);
    stdin.once('close', stopServer);
    options.stop?.addEventListener('abort', stopServer, { once: true });
    if (options.stop?.aborted) stopServer();
    await closed;
    stdin.off('end', stopServer);
    stdin.off('close', stopServer);
    options.stop?.removeEventListener('abort', stopServer);
    await hs.close();
  } finally {
    restoreConsole();
  }
}

function divertConsoleToStderr(): () => void {
  const saved = { log: console.log, info: console.info, debug: console.debug };
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  return () => Object.assign(console, saved);
}
