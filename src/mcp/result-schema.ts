/**
 * The result package as a zod schema, in its JSON form (null fields are left
 * out: an absent field means unknown). It mirrors
 * `core/result/result-package.ts`; the type check at the bottom fails the
 * build if a field is removed or retyped there without changing this file.
 *
 * Two uses: the whole schema is served once as a resource
 * (RESULT_SCHEMA_URI), and every tool's outputSchema is the compact
 * `ToolOutputSchema` (the nine sections and their types, no per-field prose):
 * the whole schema repeated in 13 tools was 82 KB of every agent's
 * `tools/list` (#13). Optional fields, not nullable type arrays: some clients
 * handle `["number", "null"]` poorly (#12).
 *
 * Objects are loose (extra properties allowed): a field added to the package
 * later must not make an older client reject every result.
 */
import { z } from 'zod';
import type { ResultPackage } from '../core/result/result-package.js';
import { RESULT_STATUSES, type ResultStatus } from '../core/status.js';

const measured = (what: string) => z.number().optional().describe(`${what}; absent when not measured`);

/** A suggested call as data (core/result/next-action.ts): over MCP, a tool name and its arguments. */
export const NextActionSchema = z
  .object({
    verb: z.string().describe('the verb (the tool name)'),
    args: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('its arguments by name; values in capitals (PATH, NAME, PATTERN) are placeholders to fill in'),
  })
  .describe('a suggested call');

export const EvidenceSchema = z
  .looseObject({
    label: z.string().describe('what this evidence is, e.g. "captured output"'),
    kind: z.enum(['excerpt', 'fact']).describe('excerpt: selected lines of captured output; fact: one established fact'),
    source: z.string().describe('the handle the evidence came from (a job id)'),
    truncated: z.boolean().describe('true when lines or bytes were left out of the excerpt'),
    excerpt: z.string().describe('the selected text; gaps say how many lines were left out'),
    total_bytes: z.number().optional().describe('bytes of the whole source'),
    total_lines: z.number().optional().describe('lines of the whole source'),
    omitted_lines: z.number().optional().describe('lines of the source not shown'),
    retrieval_action: NextActionSchema.optional().describe('the call that returns the whole source'),
    retrieval: z.string().optional().describe('retrieval_action as a call of this face (over MCP a tool call; on the CLI a shell command)'),
  })
  .describe('one piece of evidence');

export const ArtifactSchema = z
  .looseObject({
    name: z.string().describe('declared artifact name'),
    purpose: z.string().describe('why the artifact exists'),
    media_type: z.string().describe('media type, e.g. application/json'),
    digest: z.string().optional().describe('sha256 digest; absent while unknown'),
    size_bytes: z.number().optional().describe('size in bytes; absent while unknown'),
    reference: z.string().optional().describe('where it is durable (export destination); absent while unexported'),
  })
  .describe('one declared artifact');

export const ResourceUsageSchema = z
  .looseObject({
    wall_time_seconds: measured('wall-clock seconds'),
    cpu_seconds: measured('CPU seconds'),
    max_memory_bytes: measured('peak memory in bytes'),
    max_memory_scope: z.enum(['job', 'workspace']).optional().describe("whose peak max_memory_bytes is: the job's own, or the workspace's (other jobs shared its memory while this one ran)"),
    peak_pids: measured('peak processes and threads'),
    storage_bytes: measured('bytes of workspace files'),
    output_bytes: measured('bytes of captured output'),
  })
  .describe('what the work really used');

export const LimitSummarySchema = z
  .looseObject({
    name: z.string().describe('limit name, e.g. memory'),
    value: z.string().describe('the limit, formatted'),
    label: z.enum(['enforced', 'measured', 'simulated']).describe('enforced: the host really applies it; measured: only reported; simulated: applied only inside a simulated provider (fake), nothing runs for real'),
    by: z.enum(['provider', 'engine', 'none']).describe('who applies it'),
  })
  .describe('one policy limit');

export const ProvenanceSchema = z
  .looseObject({
    result_schema_version: z.number().describe('version of this result shape'),
    headspace_version: z.string().describe('headspace version that produced the result'),
    verb: z.string().describe('the verb that produced the result'),
    workspace_id: z.string().optional().describe('workspace the result is about'),
    job_id: z.string().optional().describe('job the result is about'),
    provider: z.string().optional().describe('backend, e.g. native or fake'),
    profile: z.string().optional().describe('runtime profile'),
    environment_digest: z.string().optional().describe('sha256 of what the job runs on'),
    command: z.array(z.string()).optional().describe('the argv, as recorded (verbatim)'),
    cwd: z.string().optional().describe('the job\'s working directory (run cwd), e.g. /workspace/src; absent for the workspace root'),
    started_at: z.string().optional().describe('ISO time the work started'),
    finished_at: z.string().optional().describe('ISO time the work ended'),
    policy_summary: z.array(LimitSummarySchema).describe('every limit, labelled enforced, measured or simulated'),
    policy_digest: z.string().optional().describe('sha256 of the whole policy: equal digests, equal policies'),
    inputs: z
      .array(z.looseObject({ destination: z.string(), size_bytes: z.number(), sha256: z.string() }).describe('one file copied in'))
      .describe('files copied into the workspace for this work'),
    exit_code: z.number().optional().describe('the command\'s exit status, when it exited on its own'),
    trace_id: z.string().describe('the engine call that made this result; its journal rows (intents) carry the same id'),
  })
  .describe('where the result came from');

const LocationSchema = z.looseObject({ file: z.string().describe('as the tool printed it'), line: z.number().optional(), col: z.number().optional() }).describe('where a tool says it happened');

/**
 * A structured key finding (#13). `kind` names the shape; the fields below
 * are present for the kinds that have them (an absent count means the tool
 * did not print it). Markdown shows only `text`.
 */
const StructuredFindingSchema = z
  .looseObject({
    kind: z.string().describe('test-summary, diagnostics or exception (lifted from the output); workspace (ls), file (ls-files) or job (inspect)'),
    text: z.string().describe('the finding as markdown shows it, one line per fact'),
    tool: z.string().optional().describe('test-summary and diagnostics: the tool that printed it, e.g. pytest, tsc, gcc/clang'),
    failed: z.number().optional().describe('test-summary: failing tests'),
    passed: z.number().optional().describe('test-summary: passing tests'),
    skipped: z.number().optional().describe('test-summary: skipped tests'),
    errors: z.number().optional().describe('test-summary: tests that errored; diagnostics: distinct errors'),
    warnings: z.number().optional().describe('diagnostics: distinct warnings'),
    failures: z
      .array(z.looseObject({ name: z.string(), location: LocationSchema.optional(), message: z.string().optional().describe('the assertion or first error line') }))
      .optional()
      .describe('test-summary: the first failing tests, in the order printed'),
    items: z
      .array(z.looseObject({ file: z.string(), line: z.number(), col: z.number().optional(), severity: z.string(), message: z.string(), code: z.string().optional() }))
      .optional()
      .describe('diagnostics: the first diagnostics, errors first'),
    more: z.number().optional().describe('test-summary and diagnostics: how many were left out of the list'),
    type: z.string().optional().describe('exception: its type, e.g. ZeroDivisionError'),
    message: z.string().optional().describe('exception: its message'),
    location: LocationSchema.optional().describe('exception: the innermost frame'),
    path: z.string().optional().describe('file: the workspace-relative name in its text form, the string export, declare and ls-files accept (bytes that are not UTF-8 are \\xHH, a backslash \\\\, controls and invisible characters escapes)'),
    name_encoding: z.literal('escaped').optional().describe('file: present when path holds an escape, so it is not the name written as itself'),
    id: z.string().optional().describe('workspace or job: its id'),
    state: z.string().optional().describe('workspace: its lifecycle state'),
    status: z.string().optional().describe('job: its status, or running'),
  })
  .describe('a fact lifted into fields');

export const ResultPackageSchema = z
  .looseObject({
    outcome_summary: z.string().describe('one sentence: what happened'),
    status: z.enum(RESULT_STATUSES as [ResultStatus, ...ResultStatus[]]).describe('success, failure, timeout, cancelled, resource_exhausted, policy_denied, infrastructure_failure, or running (inspect of an unfinished job)'),
    key_findings: z
      .array(
        z.union([
          z.string(),
          StructuredFindingSchema,
        ]),
      )
      .describe('the facts that matter: a line, or an object lifted from the output (e.g. failing tests with their file:line)'),
    evidence: z.array(EvidenceSchema).describe('excerpts of output and facts, chosen for an agent'),
    artifacts: z.array(ArtifactSchema).describe('declared artifacts'),
    warnings: z.array(z.string()).describe('warnings and limitations'),
    resource_usage: ResourceUsageSchema,
    provenance: ProvenanceSchema,
    attention: z
      .array(
        z
          .looseObject({
            kind: z.string().describe('what needs a decision: unexported-artifact, orphaned-job, unsettled-intent, expired, missing-workspace, unverified-workspace, leftover, judgement, next-step, escape, remedy, note'),
            text: z.string().describe('the item as markdown shows it'),
            workspace_id: z.string().optional().describe('the workspace it is about'),
            job_id: z.string().optional().describe('the job it is about'),
            name: z.string().optional().describe('unexported-artifact: the artifact (name text form)'),
            action: NextActionSchema.optional().describe('the call the item suggests; the text names it in words'),
          })
          .describe('one item that needs a decision'),
      )
      .describe('leftovers and next steps that need a decision'),
  })
  .describe('the headspace result package: nine sections in a fixed order');

/**
 * The compact output schema every tool declares: the nine sections, required,
 * with their JSON types and nothing else (about 400 bytes). The whole schema,
 * every field described, is the resource at RESULT_SCHEMA_URI.
 */
export const TOOL_OUTPUT_JSON_SCHEMA = {
  type: 'object',
  properties: {
    outcome_summary: { type: 'string' },
    status: { type: 'string' },
    key_findings: { type: 'array' },
    evidence: { type: 'array' },
    artifacts: { type: 'array' },
    warnings: { type: 'array' },
    resource_usage: { type: 'object' },
    provenance: { type: 'object' },
    attention: { type: 'array' },
  },
  required: ['outcome_summary', 'status', 'key_findings', 'evidence', 'artifacts', 'warnings', 'resource_usage', 'provenance', 'attention'],
} as const;

export const RESULT_SCHEMA_URI = 'headspace://schema/result-package';

// Compile-time drift check: every ResultPackage, as rendered to JSON (null
// fields left out), must satisfy the schema's type (ignoring the index
// signature that loose objects add).
type WithoutIndex<T> = T extends (infer U)[] ? WithoutIndex<U>[] : T extends object ? { [K in keyof T as string extends K ? never : K]: WithoutIndex<T[K]> } : T;
type JsonView<T> = T extends (infer U)[]
  ? JsonView<U>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : null extends T[K] ? never : K]: JsonView<T[K]> } & { [K in keyof T as string extends K ? never : null extends T[K] ? K : never]?: JsonView<Exclude<T[K], null>> }
    : T;
type Assignable<T extends U, U> = T;
export type ResultPackageMatchesSchema = Assignable<JsonView<ResultPackage>, WithoutIndex<z.output<typeof ResultPackageSchema>>>;
