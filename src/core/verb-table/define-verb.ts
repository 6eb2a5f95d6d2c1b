/**
 * One verb, declared once (#11): its name on every face, the engine method
 * that runs it, whether it reads, writes or destroys, its words for a person
 * and a model, its input schema and its handler. The CLI builds its commands
 * from these, the MCP server its tools, `explain`, `learn` and `cli overview`
 * their text, and the engine its methods and its unknown-key check.
 *
 * The schema is written as a function of the zod namespace, so this table
 * loads without zod: zod costs about 45 ms of every CLI start, and the CLI
 * reads the schemas' JSON form from a manifest built with the project
 * (verb-manifest.ts) instead. The MCP server, which loads zod anyway, calls
 * `input(z)` itself.
 */
import type * as zod from 'zod';
import type { EngineContext } from '../context.js';
import type { ResultPackage } from '../result/result-package.js';

/** The zod namespace a schema is built with. */
export type Zod = typeof zod.z;

/** What a verb does to the world: MCP's readOnly/destructive hints and the CLI's grouping follow from it. */
export type VerbEffect = 'reads' | 'writes' | 'destroys';

export interface VerbDefinition<
  Name extends string = string,
  Method extends string = string,
  Schema extends zod.ZodObject = zod.ZodObject,
  Runtime extends object = object,
> {
  /** The CLI verb and the MCP tool name. */
  name: Name;
  /** The engine method (library name): `listFiles` for `ls-files`. */
  method: Method;
  /** lifecycle: acts on workspaces and jobs; operator: looks after headspace itself. */
  group: 'lifecycle' | 'operator';
  effect: VerbEffect;
  /** Calling it twice with the same input leaves the world as calling it once. */
  idempotent: boolean;
  /** A few words, title case (the MCP tool's title). */
  title: string;
  /** One line for a person (`--help`, `cli overview`, `learn`). */
  summary: string;
  /** For a model: when to use it, what it costs, what comes back (the MCP tool's description, before the face's own sentences). */
  description: string;
  /** The input as data: names, types, ranges, descriptions. Strict: an unknown key is refused. */
  input: (z: Zod) => Schema;
  /** Keys a library caller may pass that are not data (an AbortSignal, a callback, a test's timeout): never in the schema, never over MCP or the CLI's flags. */
  runtimeKeys?: readonly NoInfer<keyof Runtime & string>[];
  /** Keys of the input a face that is not trusted to apply changes leaves out (MCP's doctor never applies repairs). */
  mcpOmits?: readonly string[];
  /** Optional keys a face that omits their alternative makes required (batch's jobs, once MCP omits spec). */
  mcpRequires?: readonly string[];
  /** Numeric input keys bounded lower over MCP than on the CLI and the library (watch's duration: a tool call must return). */
  mcpMaximum?: Readonly<Record<string, number>>;
  /** false: not offered as an MCP tool (an operator's verb, not a model's). */
  onMcp?: boolean;
  handler: () => Promise<(ctx: EngineContext, input: NoInfer<zod.input<Schema> & Partial<Runtime>>) => Promise<ResultPackage>>;
}

/** Keeps each entry's literal name, method and schema types while the table holds them side by side. */
export function defineVerb<Name extends string, Method extends string, Schema extends zod.ZodObject, Runtime extends object = object>(
  definition: VerbDefinition<Name, Method, Schema, Runtime>,
): VerbDefinition<Name, Method, Schema, Runtime> {
  return definition;
}
