/**
 * The lifecycle verbs as MCP tools. Each entry calls the library facade
 * exactly as `cli/main.ts` does for the same verb; nothing here decides.
 */
import { z } from 'zod';
import type { Budget } from '../../core/policy/policy.js';
import { BUDGET_FIELDS } from '../../core/policy/budget-fields.js';
import { PROFILES } from '../../core/verbs/create.js';
import { HOST_ROOTS_RULE, RETURNS, defineTool, present, type ToolSpec } from './tool-spec.js';

const workspaceId = () => z.string().describe('the workspace id, as returned by create in provenance.workspace_id');
/** Who the call's abort signal stands for, as a cancelled job's record names it. */
const CLIENT_CANCELLER = 'the MCP client (a cancellation, or a closed connection)';
const jobId = () => z.string().describe('the job id, as returned by run in provenance.job_id');
/** logs' line counts: the engine takes 1 to 1,000,000 (core/verbs/logs.ts). */
const lineCount = () => z.int().min(1).max(1_000_000);
/** A 1-based line number; 2^31 - 1 is far past any log the output budget keeps. */
const lineNumber = () => z.int().min(1).max(2 ** 31 - 1);

/** One budget argument per budget field (the same table the CLI's create flags come from). */
const BudgetSchema = z
  .strictObject(
    Object.fromEntries(
      BUDGET_FIELDS.map((f) => [
        f.key,
        // The real range, stated in the schema (not zod's ±2^53 for an int) (#12 item 22).
        (f.kind === 'integer' ? z.int() : z.number()).min(f.min).max(f.max).optional().describe(f.description.includes(f.unit) ? f.description : `${f.description}, in ${f.unit}`),
      ]),
    ) as Record<keyof Budget, z.ZodOptional<z.ZodNumber>>,
  )
  .describe('budget overrides; anything left out keeps the closed default (512 MiB memory, 1 CPU, 128 pids, 1 GiB storage, 300 s wall clock, 10 MiB output, 1 job)');

export const createTool = defineTool({
  name: 'create',
  title: 'Create a workspace',
  description: `Create an isolated workspace before running anything; it is closed by default (no network, no host paths, 512 MiB, 1 CPU, 300 s per job) and keeps its files until destroyed. The new id is in provenance.workspace_id. ${RETURNS}`,
  input: z.strictObject({
    workspaceId: z.string().optional().describe('choose the id (1–64 of A-Z a-z 0-9 . _ -); omit it to get a fresh one'),
    provider: z.string().optional().describe('backend: "native" (Linux: namespaces, seccomp, cgroups) or "fake" (in memory, no isolation, for trying things out); default: the server\'s default'),
    profile: z.enum(PROFILES).optional().describe('runtime profile; "host" exposes the host toolchains read-only (python3, sh, …)'),
    network: z.enum(['disabled', 'enabled']).optional().describe('"disabled" (default); "enabled" is refused (policy_denied): no provider offers open network access'),
    hostPaths: z.array(z.string().describe('an absolute host path')).optional().describe('host paths to expose read-only; refused unless the provider can'),
    purpose: z.string().optional().describe('why the workspace exists (shown by ls and inspect)'),
    owner: z.string().optional().describe('who owns it'),
    ttlSeconds: z.number().positive().optional().describe('expire after this many seconds (gc then removes it)'),
    budget: BudgetSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  call: async (engine, args, ctx) =>
    engine.create({
      ...present({
        workspaceId: args.workspaceId,
        provider: args.provider,
        profile: args.profile,
        network: args.network,
        hostPaths: args.hostPaths === undefined ? undefined : await Promise.all(args.hostPaths.map((path) => ctx.hostPaths.readable(path))),
        purpose: args.purpose,
        owner: args.owner,
        ttlSeconds: args.ttlSeconds,
      }),
      budget: present(args.budget ?? {}),
    }),
});

export const runTool = defineTool({
  name: 'run',
  title: 'Run a command in a workspace',
  description: `Run one command (argv, no shell: use ["sh", "-c", "…"] for one) in a workspace and wait for it; the result gives the status and an excerpt of the output chosen for you (use logs for more). SECRETS: argv is recorded verbatim, so pass secrets in env: env values are given to the job but never recorded. Host paths in inputs: ${HOST_ROOTS_RULE} ${RETURNS}`,
  input: z.strictObject({
    workspaceId: workspaceId(),
    argv: z.array(z.string().describe('one argument, verbatim')).describe('the command and its arguments, e.g. ["python3", "-c", "print(1)"]; recorded verbatim, so never a secret'),
    jobId: z.string().optional().describe('choose the job id; omit it to get a fresh one (returned in provenance.job_id)'),
    cwd: z.string().optional().describe('working directory, relative to the workspace root (default: the root, /workspace)'),
    env: z.record(z.string(), z.string().describe('the value; never recorded')).optional().describe('environment variables for the job; names are recorded, values never: the place for secrets'),
    inputs: z
      .array(
        z.strictObject({
          destination: z.string().describe('where it lands, relative to the workspace root'),
          hostPath: z.string().describe('the HOST file or directory to copy (read as the server\'s user)'),
        }),
      )
      .optional()
      .describe('host files or directories copied in before the job starts (never overwriting; recorded with size and sha256, never the bytes)'),
    declares: z
      .array(z.strictObject({ name: z.string().describe('the file the job will write, relative to the workspace root'), purpose: z.string().describe('why it matters (required)') }))
      .optional()
      .describe('artifacts the job will produce; only declared artifacts can be exported afterwards'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  call: async (engine, args, ctx) => {
    const inputs = args.inputs === undefined ? undefined : await Promise.all(args.inputs.map(async (input) => ({ destination: input.destination, hostPath: await ctx.hostPaths.readable(input.hostPath) })));
    return engine.run({ workspaceId: args.workspaceId, argv: args.argv, ...present({ jobId: args.jobId, cwd: args.cwd, env: args.env, inputs, declares: args.declares }), signal: ctx.signal, canceller: CLIENT_CANCELLER });
  },
});

export const stopTool = defineTool({
  name: 'stop',
  title: 'Stop running jobs',
  description: `End the jobs running in a workspace (all of them, or only jobId): without apply it only previews what runs; with apply: true each job gets SIGTERM, a grace (graceSeconds, default 5) to run its handler, then every process of it that remains is killed, and the job reads cancelled; a job not named runs on. ${RETURNS}`,
  input: z.strictObject({
    workspaceId: workspaceId(),
    jobId: z.string().optional().describe('end only this job (run returns it in provenance.job_id); the workspace\'s other jobs run on. Omit it to end every running job of the workspace'),
    apply: z.boolean().optional().describe('true to really end the job; false or absent only previews'),
    graceSeconds: z.number().min(0).max(3600).optional().describe('with apply: seconds between SIGTERM and the kill of what remains, so the job\'s TERM handler can run (default 5; 0 kills at once)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.stop({ workspaceId: args.workspaceId, apply: args.apply === true, ...present({ jobId: args.jobId, graceSeconds: args.graceSeconds }) }),
});

export const inspectTool = defineTool({
  name: 'inspect',
  title: 'Inspect a workspace or a job',
  description: `Report a workspace (state, policy with each limit labelled, its jobs) or a job (status, usage, output excerpt); read-only, for finding ids and re-reading results. ${RETURNS}`,
  input: z.strictObject({
    handle: z.string().describe('a workspace id or a job id'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.inspect({ handle: args.handle }),
});

export const logsTool = defineTool({
  name: 'logs',
  title: 'Read part of a job\'s output',
  description: `Read part of one job's output with line numbers (at most one of head, tail, grep, lines) to drill into a long log without loading it; read-only. ${RETURNS}`,
  input: z.strictObject({
    jobId: jobId(),
    head: lineCount().optional().describe('the first N lines'),
    tail: lineCount().optional().describe('the last N lines'),
    grep: z.string().optional().describe('lines matching this regular expression (RE2 syntax: no backreferences or lookaround; the first 65,536 characters of each line are searched)'),
    lines: z
      .strictObject({ from: lineNumber().describe('first line, 1-based'), to: lineNumber().describe('last line, inclusive') })
      .optional()
      .describe('lines from..to'),
    maxLines: lineCount().optional().describe('at most this many lines (default 200)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.logs({ jobId: args.jobId, ...present({ head: args.head, tail: args.tail, grep: args.grep, lines: args.lines, maxLines: args.maxLines }) }),
});

export const lsTool = defineTool({
  name: 'ls',
  title: 'List workspaces',
  description: `List workspaces with their state, provider, purpose and expiry; read-only and cheap, for finding a workspace created earlier. ${RETURNS}`,
  input: z.strictObject({
    all: z.boolean().optional().describe('true to include destroyed workspaces'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.ls({ all: args.all === true }),
});

export const destroyTool = defineTool({
  name: 'destroy',
  title: 'Destroy a workspace',
  description: `Remove a workspace and everything in it when the task is done; irreversible, and refused while a job runs (stop it first). ${RETURNS}`,
  input: z.strictObject({
    workspaceId: workspaceId(),
    force: z.boolean().optional().describe('true to discard what would otherwise make destroy refuse'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  call: (engine, args) => engine.destroy({ workspaceId: args.workspaceId, force: args.force === true }),
});

export const doctorTool = defineTool({
  name: 'doctor',
  title: 'Check headspace\'s health',
  description: `Read-only health report (state store, leftovers, each provider's readiness); use it when create is refused or something looks wrong. ${RETURNS}`,
  input: z.strictObject({
    provider: z.string().optional().describe('check only this provider (native or fake)'),
    repair: z
      .boolean()
      .optional()
      .describe('also list each repair `headspace doctor --repair --apply` would make, marked safe or a judgement call with its reason (a dry run: this tool never applies repairs; a person or the CLI does)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  call: (engine, args) => engine.doctor(present({ provider: args.provider, repair: args.repair === true ? true : undefined })),
});

export const LIFECYCLE_TOOLS: readonly ToolSpec[] = [createTool, runTool, stopTool, inspectTool, logsTool, lsTool, destroyTool, doctorTool];
