/**
 * Every MCP tool, built from the verb table (core/verb-table/): one tool per
 * verb offered over MCP, with the table's name, title, input schema and
 * description, and annotations from what the verb does. What is MCP's own is
 * here: the host-path guard on the arguments that name host paths, the
 * call's abort signal for run, and the sentences a model needs about both.
 * The names and input schemas are pinned by
 * test/e2e/mcp/tool-names-and-input-schemas-are-pinned.test.ts.
 */
import { z } from 'zod';
import type { ResultPackage } from '../../core/result/result-package.js';
import type { AnyVerb } from '../../core/verb-table/verb-table.js';
import { VERB_TABLE } from '../../core/verb-table/verb-table.js';
import { HOST_ROOTS_RULE, RETURNS, type ToolCallContext, type ToolSpec } from './tool-spec.js';

/** Who the call's abort signal stands for, as a cancelled job's record names it. */
const CLIENT_CANCELLER = 'the MCP client (a cancellation, or a closed connection)';

type Args = Record<string, unknown>;

const MCP_WAIT_DEFAULT_SECONDS = 300;

/** Arguments that name host paths go through the server's roots first (#10 item 6); run's job ends when the call is aborted. */
const PREPARE: Partial<Record<AnyVerb['name'], (args: Args, ctx: ToolCallContext) => Promise<Args>>> = {
  // An agent may not open the host's own services to a job (an allow-list naming 127.0.0.1:PORT or a private address).
  create: async (args, ctx) => ({
    ...args,
    privateTargetsRefused: true,
    ...(args.hostPaths === undefined ? {} : { hostPaths: await Promise.all((args.hostPaths as string[]).map((path) => ctx.hostPaths.readable(path))) }),
  }),
  run: async (args, ctx) => {
    const inputs = args.inputs as Array<{ destination: string; hostPath: string }> | undefined;
    return {
      ...args,
      ...(inputs === undefined
        ? {}
        : {
            inputs: await Promise.all(
              inputs.map(async (input) => ({ destination: input.destination, hostPath: await ctx.hostPaths.readable(input.hostPath) })),
            ),
          }),
      // A detached run outlives the call: the call's end must not stop it.
      ...(args.detach === true ? {} : { signal: ctx.signal, canceller: CLIENT_CANCELLER }),
      withoutGitMetadata: true,
    };
  },
  // A tool call must return: the wait is bounded (its schema's maximum), 300 s when none is given; the call's abort ends the wait, not the jobs.
  wait: async (args, ctx) => ({ ...args, timeoutSeconds: args.timeoutSeconds ?? MCP_WAIT_DEFAULT_SECONDS, signal: ctx.signal }),
  watch: async (args, ctx) => ({ ...args, signal: ctx.signal }),
  // A cancelled call stops making forks between children; the ones made stay whole.
  fork: async (args, ctx) => ({ ...args, signal: ctx.signal }),
  // A batch call returns its group id at once (#16): a detached process drives it, so the call's end never cancels it.
  batch: async (args) => ({ ...args, detach: true }),
  'batch-wait': async (args, ctx) => ({ ...args, timeoutSeconds: args.timeoutSeconds ?? MCP_WAIT_DEFAULT_SECONDS, signal: ctx.signal }),
  // A cancelled call ends a waiting claim (an empty claim) instead of leaving it to its wait.
  // A webhook subscription is the operator's pusher's: an agent claiming or acknowledging its events would silence it.
  'events-claim': async (args, ctx) => ({ ...args, signal: ctx.signal, pullOnly: true }),
  'events-ack': async (args) => ({ ...args, pullOnly: true }),
  // An agent's copy leaves a nested clone's .git out: its config may hold the user's token.
  put: async (args, ctx) => ({ ...args, hostPath: await ctx.hostPaths.readable(args.hostPath as string), withoutGitMetadata: true }),
  export: async (args, ctx) => ({ ...args, to: await ctx.hostPaths.writable(args.to as string) }),
  // The manifest through the roots (the server's instructions say so once); its inputs and env files cannot leave its directory ('..' and links are refused), so they stay under them too.
  plan: async (args, ctx) => ({ ...args, file: await ctx.hostPaths.readable((args.file as string | undefined) ?? 'headspace.yml') }),
  prepare: async (args, ctx) => ({ ...args, file: await ctx.hostPaths.readable((args.file as string | undefined) ?? 'headspace.yml') }),
  doctor: async (args, ctx) => (args.file === undefined ? args : { ...args, file: await ctx.hostPaths.readable(args.file as string) }),
  // A receipt file written or verified, and an artifacts directory read, are host paths like any other (#16).
  receipt: async (args, ctx) => ({
    ...args,
    ...(args.out === undefined ? {} : { out: await ctx.hostPaths.writable(args.out as string) }),
    ...(args.verifyFile === undefined ? {} : { verifyFile: await ctx.hostPaths.readable(args.verifyFile as string) }),
    ...(args.artifactsDir === undefined ? {} : { artifactsDir: await ctx.hostPaths.readable(args.artifactsDir as string) }),
  }),
};

/** What a model must know of a tool over MCP beyond the verb's own description. */
const NOTES: Partial<Record<AnyVerb['name'], string>> = {
  run: `Host paths in inputs: ${HOST_ROOTS_RULE}`,
  put: HOST_ROOTS_RULE,
  export: HOST_ROOTS_RULE,
  receipt: HOST_ROOTS_RULE,
};

export function toolFor(verb: AnyVerb): ToolSpec {
  const schema = verb.input(z) as z.ZodObject;
  const omit = Object.fromEntries((verb.mcpOmits ?? []).map((key) => [key, true as const]));
  const prepare = PREPARE[verb.name];
  const omitted = required(verb.mcpOmits ? schema.omit(omit as never) : schema, verb.mcpRequires ?? []);
  return {
    name: verb.name,
    title: verb.title,
    // What a result package holds, and how a refusal reads, is said once in the server's instructions (server.ts), not in each description: tools/list stays under 25 KB.
    description: [verb.description, NOTES[verb.name], RETURNS].filter(Boolean).join(' '),
    input: verb.mcpMaximum ? lowerMaxima(omitted, verb.mcpMaximum) : omitted,
    annotations: { readOnlyHint: verb.effect === 'reads', destructiveHint: verb.effect === 'destroys', idempotentHint: verb.idempotent, openWorldHint: false },
    call: async (engine, args, ctx) => {
      const method = (engine as unknown as Record<string, (input: Args) => Promise<ResultPackage>>)[verb.method]!.bind(engine);
      return method(prepare ? await prepare(args as Args, ctx) : (args as Args));
    },
  };
}

/** Keys optional on a face with an alternative to them, required over MCP where the alternative is omitted (batch's jobs). */
function required(schema: z.ZodObject, keys: readonly string[]): z.ZodObject {
  if (keys.length === 0) return schema;
  const shape: Record<string, z.ZodType> = {};
  for (const key of keys) {
    const declared = schema.shape[key] as z.ZodType;
    shape[key] = declared instanceof z.ZodOptional ? (declared.unwrap() as z.ZodType).describe(declared.description ?? '') : declared;
  }
  return schema.extend(shape);
}

/** A numeric key bounded lower over MCP (watch's duration), its description kept. */
function lowerMaxima(schema: z.ZodObject, maxima: Readonly<Record<string, number>>): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, max] of Object.entries(maxima)) {
    const declared = schema.shape[key] as z.ZodNumber | z.ZodOptional<z.ZodNumber>;
    const field = declared instanceof z.ZodOptional ? declared.unwrap() : declared;
    const bounded = field.max(max).describe(declared.description ?? field.description ?? '');
    shape[key] = declared instanceof z.ZodOptional ? bounded.optional() : bounded;
  }
  return schema.extend(shape);
}

export const TOOLS: readonly ToolSpec[] = VERB_TABLE.filter((verb) => verb.onMcp !== false).map((verb) => toolFor(verb as AnyVerb));
