/**
 * Drives the REAL built server (`bin/headspace mcp`) with the SDK's own
 * client, over stdio or Streamable HTTP, with a throwaway HEADSPACE_HOME.
 * Every handle has a `close()` that ends the client, the server process and
 * the home; tests call it in afterAll/finally so nothing leaks.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { assertBuilt, BIN, makeHome } from './cli.js';

export interface McpHandle {
  client: Client;
  home: string;
  /** Everything the server wrote on stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface HttpServerHandle {
  url: string;
  token: string;
  home: string;
  child: ChildProcess;
  stderr(): string;
  /** A new session; with `roots`, the client offers them. */
  connect(options?: { roots?: string[] }): Promise<Client>;
  close(): Promise<void>;
}

/** The SDK client; with `roots`, it declares the roots capability and answers roots/list with those folders (read at each request). */
function e2eClient(roots: string[] | undefined): Client {
  const client = new Client({ name: 'headspace-e2e', version: '1.0.0' }, roots === undefined ? {} : { capabilities: { roots: { listChanged: true } } });
  if (roots !== undefined) client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((r) => ({ uri: pathToFileURL(r).href })) }));
  return client;
}

function baseEnv(home: string, provider: string, extra: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', HEADSPACE_HOME: home, HEADSPACE_PROVIDER: provider, ...extra };
}

export interface StdioOptions {
  provider?: string;
  env?: Record<string, string>;
  args?: string[];
  /** The server's working directory (its default root); default this process's. */
  cwd?: string;
  /** When given, the client declares the roots capability and answers roots/list with these folders. */
  roots?: string[];
}

export async function connectStdio(options: StdioOptions = {}): Promise<McpHandle> {
  assertBuilt();
  const { home, cleanup } = makeHome();
  const transport = new StdioClientTransport({
    command: BIN,
    args: ['mcp', ...(options.args ?? [])],
    env: baseEnv(home, options.provider ?? 'fake', options.env ?? {}),
    stderr: 'pipe',
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = e2eClient(options.roots);
  try {
    await client.connect(transport);
  } catch (error) {
    await cleanup();
    throw new Error(`mcp server did not start: ${String(error)}\n${stderr}`);
  }
  return {
    client,
    home,
    stderr: () => stderr,
    async close() {
      await client.close().catch(() => {});
      await cleanup();
    },
  };
}

/** Starts `headspace mcp --http --port 0 …` and waits for the URL and token on stderr. */
export async function startHttp(options: { provider?: string; env?: Record<string, string>; args?: string[]; cwd?: string } = {}): Promise<HttpServerHandle> {
  assertBuilt();
  const { home, cleanup } = makeHome();
  const child = spawn(BIN, ['mcp', '--http', '--port', '0', ...(options.args ?? [])], {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    env: baseEnv(home, options.provider ?? 'fake', options.env ?? {}),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ url: string; token: string } | null>((resolve) => {
    const timer = setTimeout(() => resolve(null), 20_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /serving Streamable HTTP at (\S+)/.exec(stderr)?.[1];
      const token = options.env?.HEADSPACE_MCP_TOKEN ?? /bearer token \(generated[^)]*\): (\S+)/.exec(stderr)?.[1];
      if (url && token && /bearer token/.test(stderr)) {
        clearTimeout(timer);
        resolve({ url, token });
      }
    });
    child.once('exit', () => resolve(null));
  });
  const clients: Client[] = [];
  const close = async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
    await cleanup();
  };
  if (!started) {
    await close();
    throw new Error(`mcp --http did not start:\n${stderr}`);
  }
  return {
    ...started,
    home,
    child,
    stderr: () => stderr,
    async connect(connectOptions = {}) {
      const client = e2eClient(connectOptions.roots);
      await client.connect(new StreamableHTTPClientTransport(new URL(started.url), { requestInit: { headers: { authorization: `Bearer ${started.token}` } } }));
      clients.push(client);
      return client;
    },
    close: async () => {
      await close();
      if (stdout !== '') throw new Error(`mcp --http wrote to stdout: ${stdout.slice(0, 200)}`);
    },
  };
}

/** The text of a tool result's first content item. */
export function textOf(result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string; text?: string }> | undefined;
  return content?.[0]?.text ?? '';
}
