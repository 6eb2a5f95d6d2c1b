/**
 * The MCP edge's one error table (house style point 10: local codes differ
 * from wire codes; map them once per edge). Three kinds, never confused:
 *
 * | what went wrong                                   | on the wire                                      |
 * |---------------------------------------------------|--------------------------------------------------|
 * | the verb refused or failed (any EngineError but   | a tool result with `isError: true`: the category, |
 * | INTERNAL): bad id, policy_denied, busy, …         | exit code, message and remediation               |
 * | the call itself is malformed: unknown tool,       | JSON-RPC error -32602 (Invalid params)            |
 * | arguments that do not match the input schema      |                                                  |
 * | our own bug (a throw that is not an EngineError,  | JSON-RPC error -32603 (Internal error); the stack |
 * | or EngineError INTERNAL)                          | goes to stderr, never to the client              |
 *
 * A job that ran and failed is none of these: it is a normal tool result whose
 * package says `status: failure` (the verb did its work; the command failed).
 *
 * Note on -32602 for schema mismatches: MCP spec 2025-11-25 (SEP-1303) asks
 * servers to report input validation as tool execution errors so a model can
 * self-correct. We keep -32602 because the issue requires it and because the
 * split keeps "your call was malformed" apart from "headspace said no"; the
 * message names each bad field so a client that shows it can still
 * self-correct. Flipping that is one change, in `invalidArguments` below.
 */
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { EngineError } from '../core/errors.js';
import { EXIT_CODES, type Category } from '../core/status.js';
import { withAction, type NextAction, type RenderAction } from '../core/next-action.js';
import { mcpActionRenderer } from './render-action.js';
import { setServing } from './tools/select-tools.js';

/** JSON-RPC codes this server emits. -32002 is MCP's "resource not found". */
export const WIRE_CODES = Object.freeze({
  invalidParams: ErrorCode.InvalidParams,
  internalError: ErrorCode.InternalError,
  resourceNotFound: -32002,
});

/** The same document the CLI prints on stderr under --json. */
export interface ErrorDocument {
  code: number;
  message: string;
  remediation: string | null;
  category: Category;
  reason: string;
  /** The call the remediation suggests, as data (a tool name and its arguments). */
  action?: NextAction;
}

export const ERROR_META_KEY = 'headspace/error';

/**
 * A JSON-RPC error to throw from a request handler: the SDK sends `code`,
 * `message` and `data` as they are. (Its McpError bakes "MCP error <code>:"
 * into the message, and the client adds that prefix again.)
 */
export class ProtocolFault extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'ProtocolFault';
    this.code = code;
    this.data = data;
  }
}

export function errorDocument(error: EngineError, renderAction: RenderAction = mcpActionRenderer): ErrorDocument {
  // The hint's suggested call follows it as a tool call, never a CLI command (#11).
  const remediation =
    error.hint === undefined ? (error.action === undefined ? null : renderAction(error.action)) : withAction(error.hint, error.action, renderAction);
  return {
    code: EXIT_CODES[error.category],
    message: error.message,
    remediation,
    category: error.category,
    reason: error.code,
    ...(error.action === undefined ? {} : { action: error.action }),
  };
}

/** A refused or failed verb, as a tool error result the model reads and acts on. */
export function toolErrorResult(error: EngineError, renderAction?: RenderAction): CallToolResult {
  const doc = errorDocument(error, renderAction);
  const text = [
    `error: ${doc.category} (exit ${doc.code}, ${doc.reason}): ${oneLine(doc.message)}`,
    `hint: ${oneLine(doc.remediation ?? 'call the learn prompt, or the doctor tool, for the rules')}`,
  ].join('\n');
  return { isError: true, content: [{ type: 'text', text }], _meta: { [ERROR_META_KEY]: doc } };
}

/** Arguments that do not match the tool's input schema: a protocol error naming each bad field. */
export function invalidArguments(tool: string, error: z.ZodError, input?: z.ZodType): ProtocolFault {
  const issues = error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(arguments)', message: issue.message }));
  const listed = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  // A key the tool does not take (workspaceId where inspect takes handle): name the ones it does, so the next call is right.
  const keys = Object.keys((input as { shape?: Record<string, unknown> } | undefined)?.shape ?? {});
  const unknownTopLevel = error.issues.some((issue) => issue.code === 'unrecognized_keys' && issue.path.length === 0);
  const takes = unknownTopLevel && keys.length > 0 ? `; ${tool} takes: ${keys.join(', ')}` : '';
  return new ProtocolFault(WIRE_CODES.invalidParams, `invalid arguments for tool ${tool}: ${listed}${takes}`, { tool, issues });
}

export function unknownTool(name: string, known: readonly string[]): ProtocolFault {
  // A tool this server left out (--tools) is named as such, with the set that serves it: the model can ask for it.
  const set = setServing(name);
  const leftOut = set === undefined ? '' : ` (a headspace tool this server does not serve: the operator adds it with --tools ${set})`;
  return new ProtocolFault(WIRE_CODES.invalidParams, `unknown tool '${name.slice(0, 80)}'${leftOut}; the tools are: ${known.join(', ')}`, { tool: name });
}

/**
 * What a tool call's throw becomes: a tool error result for an EngineError the
 * engine raised on purpose, otherwise (our bug) a -32603 protocol error. The
 * fault's stack is written to `log` (stderr), never sent to the client.
 */
export function toolFailure(value: unknown, log: (line: string) => void, renderAction?: RenderAction): CallToolResult {
  if (value instanceof EngineError && value.code !== 'INTERNAL') return toolErrorResult(value, renderAction);
  throw internalFault(value, log);
}

export function internalFault(value: unknown, log: (line: string) => void): ProtocolFault {
  if (value instanceof ProtocolFault) return value;
  if (value instanceof McpError) return new ProtocolFault(value.code, value.message, value.data);
  const message = value instanceof Error ? value.message : String(value);
  log(`headspace mcp: internal error: ${value instanceof Error ? (value.stack ?? message) : message}`);
  return new ProtocolFault(WIRE_CODES.internalError, `internal error in headspace (a headspace bug; please report it): ${oneLine(message).slice(0, 300)}`);
}

/**
 * Resource reads have no "tool error" form, so an EngineError becomes a
 * JSON-RPC error carrying the same document in `data`: -32002 when the thing
 * named does not exist, -32602 for any other fault of the request
 * (user_error), -32603 for the rest (environment, infrastructure, our bugs).
 */
export function resourceFailure(value: unknown, log: (line: string) => void): ProtocolFault {
  if (value instanceof ProtocolFault) return value;
  if (value instanceof McpError) return new ProtocolFault(value.code, value.message, value.data);
  if (!(value instanceof EngineError) || value.code === 'INTERNAL') return internalFault(value, log);
  const doc = errorDocument(value);
  const notFound = value.code === 'FILE_NOT_FOUND' || value.code === 'WORKSPACE_NOT_FOUND' || value.code === 'WORKSPACE_DESTROYED';
  const code = notFound ? WIRE_CODES.resourceNotFound : value.category === 'user_error' ? WIRE_CODES.invalidParams : WIRE_CODES.internalError;
  return new ProtocolFault(code, `${doc.category}: ${oneLine(doc.message)}${doc.remediation ? ` (hint: ${oneLine(doc.remediation)})` : ''}`, doc);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n]+/g, ' ');
}
