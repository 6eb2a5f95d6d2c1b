/**
 * One MCP tool as data: its name, a description written for a model, a zod
 * input schema (shape, types and the real numeric ranges, so a client sees
 * them; the engine checks meaning, so a bad id comes back as the engine's own
 * user_error with its hint, exactly as on the CLI), hints, and a call into the library
 * facade. Built from the verb table (index.ts).
 */
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Engine } from '../../core/engine.js';
import type { ResultPackage } from '../../core/result/result-package.js';
import type { HostPathGuard } from '../host-roots.js';

export interface ToolCallContext {
  /** Aborted when the client cancels the request or the connection closes. */
  signal: AbortSignal;
  /** Every host path a tool reads or writes goes through this first (the server's roots, #10 item 6). */
  hostPaths: HostPathGuard;
}

export interface ToolSpec<Input extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** For a model: when to use it, what it costs, what comes back. */
  description: string;
  input: Input;
  annotations: ToolAnnotations;
  call(engine: Engine, args: z.output<Input>, ctx: ToolCallContext): Promise<ResultPackage>;
}

/**
 * Every description ends with the same sentence, so a model knows what it
 * holds; the server's instructions say the rest once (structuredContent and
 * bounded markdown, a refusal as a tool error with its category and a hint),
 * which keeps tools/list under its 25 KB cap.
 */
export const RETURNS = 'Returns a result package.';

/** Said by every tool that touches host paths (see ../host-roots.ts). */

export const HOST_ROOTS_RULE = "Host paths must lie under the server's roots (see its instructions), else policy_denied.";

/** The whole rule, said once in the server's instructions (server.ts) rather than in each tool that touches host paths. */
export const HOST_ROOTS_INSTRUCTIONS =
  "Host paths (run's inputs, put, export, a plan or prepare manifest) must lie under the server's roots (your client's roots if it offers them, within the server's --root folders if any, over HTTP within its working directory otherwise; else the --root folders, else its working directory), checked after resolving links and `..`; anything else is refused (policy_denied).";
