/**
 * The MCP face of headspace: tools (one per verb, from the table in
 * tools/index.ts), the `learn` prompt and workspace files as resources. It
 * adds no engine logic: each tool validates the shape of its arguments and
 * calls the same library facade the CLI uses, then renders the result once.
 *
 * Tools are served by our own `tools/list` and `tools/call` handlers rather
 * than `McpServer.registerTool`, because the SDK's handler turns every throw,
 * input validation included, into a tool error result; we need malformed
 * arguments to be -32602 and internal faults -32603 (see errors.ts).
 * Prompts and resources use `McpServer`'s own registration.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  RootsListChangedNotificationSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Engine } from '../core/engine.js';
import { learnText, type LearnSurface } from '../core/learn.js';
import { renderJson } from '../core/result/render-json.js';
import { renderMarkdown } from '../core/result/render-markdown.js';
import { packageVersion } from '../core/version.js';
import { fallbackRoots, hostPathGuard, trackRoots, type RootSet } from './host-roots.js';
import { internalFault, invalidArguments, resourceFailure, toolFailure, unknownTool } from './errors.js';
import { FILE_RESOURCE_MAX_BYTES, FILE_URI_TEMPLATE, readWorkspaceFile } from './resources.js';
import { reportProgress } from './progress.js';
import { boundStructured, DEFAULT_MAX_STRUCTURED_BYTES } from './bound-structured.js';
import { mcpActionRendererFor } from './render-action.js';
import { RESULT_SCHEMA_URI, ResultPackageSchema, TOOL_OUTPUT_JSON_SCHEMA } from './result-schema.js';
import { TOOLS } from './tools/index.js';
import { HOST_ROOTS_INSTRUCTIONS, type ToolSpec } from './tools/tool-spec.js';

/**
 * Builds an engine for one tool call or resource read; the server closes it
 * afterwards, as the CLI does per verb, so concurrent calls behave exactly
 * like concurrent CLI processes.
 */
export type EngineFactory = () => Engine | Promise<Engine>;

export interface McpServerOptions {
  /** Bound of each result's markdown text (default 8192, floor 512). */
  maxResultBytes?: number;
  /** Bound of each result's structuredContent, as JSON (default 64 KiB, floor 4096; see bound-structured.ts for why larger). */
  maxStructuredBytes?: number;
  /** Diagnostics sink; default stderr. Never stdout: that is the protocol channel. */
  log?: (line: string) => void;
  /** The tool table; default TOOLS. */
  tools?: readonly ToolSpec[];
  /** Host-path roots when the client offers none (see host-roots.ts); default the working directory, none when that is `/`. */
  fallbackRoots?: RootSet;
  /** What relative host paths are relative to; default process.cwd(). */
  cwd?: string;
  /** Narrow the client's roots to the fallback roots whatever their origin (HTTP: the client is any token holder). */
  boundClientRoots?: boolean;
}

/** Where the markdown's markers send a reader for a shrunk field: not `--json`, which a model over MCP cannot pass. */
const FULL_RESULT = "this result's structuredContent";
/** Set in a result's _meta when its structuredContent was shrunk to its bound. */
export const TRUNCATED_META_KEY = 'headspace/structured-truncated';

/** How long a roots/list request to the client may take before the tool call is refused. */
const ROOTS_LIST_TIMEOUT_MS = 10_000;

export interface HeadspaceMcpServer {
  readonly server: McpServer;
  connect(transport: Transport): Promise<void>;
  /** Closes the connection (in-flight calls are aborted: a running job ends cancelled) and waits for every call to settle. */
  close(): Promise<void>;
}

const INSTRUCTIONS = `headspace runs commands in isolated, budgeted workspaces and returns compact result packages instead of raw logs. Typical flow: create → run (as often as needed) → logs/inspect when you need more → destroy. Read the status first. Never put a secret in run's argv (it is recorded verbatim); pass secrets in env. Every tool returns a result package: nine sections (outcome_summary, status, key_findings, evidence, artifacts, warnings, resource_usage, provenance, attention) as structuredContent, and the same as markdown text bounded to about 8 KiB; its full JSON Schema is the resource headspace://schema/result-package. A refusal (bad id, policy_denied, busy workspace, …) is a tool error naming its category, exit code and a hint. The learn prompt explains the rules and exit codes. ${HOST_ROOTS_INSTRUCTIONS}`;

export function createMcpServer(engineFactory: EngineFactory, options: McpServerOptions = {}): HeadspaceMcpServer {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const tools = options.tools ?? TOOLS;
  const byName = new Map(tools.map((t) => [t.name, t]));
  // Suggested calls read as tool calls only for the tools listed here (--tools may serve fewer than all).
  const mcpActionRenderer = mcpActionRendererFor(new Set(byName.keys()));
  const inFlight = new Set<Promise<unknown>>();
  const server = new McpServer(
    { name: 'headspace', title: 'headspace', version: packageVersion() },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );

  async function withEngine<T>(work: (engine: Engine) => Promise<T>): Promise<T> {
    const engine = await engineFactory();
    try {
      return await work(engine);
    } finally {
      engine.close();
    }
  }

  function tracked<T>(promise: Promise<T>): Promise<T> {
    inFlight.add(promise);
    const forget = () => inFlight.delete(promise);
    promise.then(forget, forget);
    return promise;
  }

  const cwd = options.cwd ?? process.cwd();
  const roots = trackRoots(() => server.server.getClientCapabilities()?.roots !== undefined, options.fallbackRoots ?? fallbackRoots([], cwd), {
    bounded: options.boundClientRoots === true,
  });
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => roots.invalidate());

  const listed: Tool[] = tools.map(describeTool);
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));
  server.server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw unknownTool(request.params.name, [...byName.keys()]);
    const parsed = tool.input.safeParse(request.params.arguments ?? {});
    if (!parsed.success) throw invalidArguments(tool.name, parsed.error, tool.input);
    // Asked through this request, so over HTTP the roots/list travels on the call's own stream.
    const askRoots = async () => (await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema, { timeout: ROOTS_LIST_TIMEOUT_MS })).roots;
    const hostPaths = hostPathGuard(() => roots.current(askRoots), cwd, tool.name);
    const progressToken = request.params._meta?.progressToken;
    return tracked(
      withEngine(async (engine) => {
        // Only when the client asked (a token): a client that did not cannot use them (#12 item 19).
        const stopProgress =
          progressToken === undefined
            ? () => {}
            : reportProgress(
                engine.events,
                (update) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } }),
                log,
              );
        try {
          return await tool.call(engine, parsed.data, { signal: extra.signal, hostPaths });
        } finally {
          stopProgress();
        }
      }).then(
        (pkg): CallToolResult => {
          // The JSON rendering, so a client sees what --json prints (null fields left out), bounded (#12 item 20).
          // Suggested calls are tool calls here (render-action.ts); core wrote them as data.
          const structured = boundStructured(
            JSON.parse(renderJson(pkg, { renderAction: mcpActionRenderer })) as Record<string, unknown>,
            options.maxStructuredBytes ?? DEFAULT_MAX_STRUCTURED_BYTES,
          );
          return {
            content: [
              {
                type: 'text',
                text: renderMarkdown(pkg, {
                  fullResult: FULL_RESULT,
                  renderAction: mcpActionRenderer,
                  ...(options.maxResultBytes === undefined ? {} : { maxBytes: options.maxResultBytes }),
                }),
              },
            ],
            structuredContent: structured.value,
            ...(structured.originalBytes === undefined ? {} : { _meta: { [TRUNCATED_META_KEY]: { original_bytes: structured.originalBytes } } }),
          };
        },
        (error: unknown) => toolFailure(error, log, mcpActionRenderer),
      ),
    );
  });

  server.registerPrompt(
    'learn',
    {
      title: 'Learn headspace',
      description: 'A self-teaching introduction: what headspace is, the workflow, the rules (secrets, limits), the result package and the exit codes.',
    },
    () => ({
      messages: [{ role: 'user', content: { type: 'text', text: mcpLearnText(tools) } }],
    }),
  );

  server.registerResource(
    'workspace-file',
    new ResourceTemplate(FILE_URI_TEMPLATE, { list: undefined }),
    {
      title: 'A file in a workspace',
      description: `A regular file inside a workspace, read whole (at most ${FILE_RESOURCE_MAX_BYTES} bytes; larger files are refused, not cut). Symlinks, directories and special files are refused. path is relative to the workspace root, as ls-files shows it, and percent-encoded.`,
    },
    (uri, variables) =>
      tracked(
        withEngine((engine) => readWorkspaceFile(engine, uri.href, String(variables.workspaceId), String(variables.path))).catch((error: unknown) => {
          throw resourceFailure(error, log);
        }),
      ),
  );

  // The whole result schema, every field described, once: each tool declares only the compact shape (#13).
  server.registerResource(
    'result-schema',
    RESULT_SCHEMA_URI,
    {
      title: 'The result package schema',
      description: 'JSON Schema of the result package every tool returns, every field described.',
      mimeType: 'application/schema+json',
    },
    (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'application/schema+json', text: `${JSON.stringify(toJsonSchema(ResultPackageSchema, 'output'), null, 2)}\n` }],
    }),
  );

  // McpServer announces listChanged for prompts and resources on registration; our
  // lists are fixed for the server's life, so say so: a client need not watch them (#12 item 22).
  server.server.registerCapabilities({ tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false } });

  server.server.onerror = (error) => log(`headspace mcp: ${error.message}`);

  return {
    server,
    connect: (transport) => server.connect(transport),
    async close() {
      await server.close().catch((error: unknown) => log(`headspace mcp: close failed: ${internalFault(error, log).message}`));
      await Promise.allSettled([...inFlight]);
    },
  };
}

function describeTool(tool: ToolSpec): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toJsonSchema(tool.input, 'input'),
    outputSchema: structuredClone(TOOL_OUTPUT_JSON_SCHEMA) as unknown as Tool['outputSchema'],
    // The title once, at the top level where MCP puts it: repeating it in annotations cost every agent ~0.4 KB of tools/list.
    annotations: { ...tool.annotations },
  };
}

/** Draft-07, which every client validator (the SDK's ajv included) reads. */
function toJsonSchema(schema: z.ZodObject, io: 'input' | 'output'): Tool['inputSchema'] {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io }) as Record<string, unknown>;
  delete json.$schema;
  return dropEmptyAdditionalProperties(json) as Tool['inputSchema'];
}

/**
 * A loose object becomes `additionalProperties: {}`, which means what leaving it
 * out means, and which some clients' validators and UIs mishandle (#12 item 22).
 */
function dropEmptyAdditionalProperties(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropEmptyAdditionalProperties);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'additionalProperties' && value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) continue;
    out[key] = dropEmptyAdditionalProperties(value);
  }
  return out;
}

function mcpLearnText(tools: readonly ToolSpec[]): string {
  const preface = [
    '# Using headspace over MCP',
    '',
    'Each verb below is a tool of the same name, called with JSON arguments (its input schema names them). Each tool returns the result package as structuredContent and as bounded markdown text; a refusal is a tool error naming its category and exit code.',
    `A workspace file can be read as the resource ${FILE_URI_TEMPLATE} (at most ${FILE_RESOURCE_MAX_BYTES} bytes).`,
    "Never put a secret in argv: it is recorded verbatim. Pass it in run's env; values are never recorded.",
    "Host paths (put, export, run's inputs, create's hostPaths) must lie under the server's roots: your client's roots when it offers them (narrowed to the folders given with `headspace mcp --root DIR`, if any; over HTTP, without --root, to the directory the server started in), otherwise those --root folders, otherwise the directory the server started in (none when that is /). Links and `..` are resolved before the check, and export never writes through a link. A path outside is refused as policy_denied naming the roots.",
    '',
  ].join('\n');
  return `${preface}\n${learnText(
    tools.map((t) => ({ name: t.name, summary: t.title })),
    MCP_LEARN_SURFACE,
  )}`;
}

/** The workflow as tool calls: the prompt never tells a model a CLI flag it cannot pass (#12 item 22). */
const MCP_LEARN_SURFACE: LearnSurface = {
  workflow: [
    {
      verb: 'create',
      text: 'create {"purpose": "…"} → a workspace id in provenance.workspace_id (closed policy: no network, 512 MiB, 1 CPU, 128 pids, 300 s)',
    },
    {
      verb: 'run',
      text: 'run {"workspaceId": W, "argv": ["python3", "-c", "print(1)"]} → a bounded result: status, key findings, an excerpt of the output chosen for you. A long run: ask for progress (a progress token; with the official SDK, onprogress plus resetTimeoutOnProgress: true), or your client may give up at its request timeout',
    },
    {
      verb: 'logs',
      text: 'logs {"jobId": J, "grep": REGEX} | {"jobId": J, "tail": N} | {"jobId": J, "lines": {"from": A, "to": B}} → drill into the output without loading it all',
    },
    { verb: 'inspect', text: 'inspect {"handle": J} → a job\'s status and excerpt again; {"handle": W} → a workspace and its jobs' },
    { verb: 'status', text: 'status {} → where you are: the workspace used most recently and its latest job, in a few lines' },
    { verb: 'stop', text: 'stop {"workspaceId": W, "apply": true} → end a running job (from any client or process)' },
    { verb: 'destroy', text: 'destroy {"workspaceId": W} → remove it' },
  ],
  rules: ['structuredContent holds the result as JSON; the text is the same result as bounded markdown.'],
};
