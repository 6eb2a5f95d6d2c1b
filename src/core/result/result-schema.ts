/**
 * The result package, written once: every section and field as a zod
 * schema, each field described. The TypeScript types (ResultPackage,
 * Evidence, …) are inferred from it, and the JSON form served to MCP clients
 * is derived from it, so a field added here reaches the types, the served
 * schema and the validation tests together.
 *
 * Two forms, one source:
 * - In memory (`ResultPackageSchema`), an unknown value is `null` and every
 *   nullable field is present: a verb must say "unknown" rather than forget.
 * - In JSON (`ResultPackageJsonSchema`, derived by `jsonFormOf`), renderJson
 *   leaves null fields out (#13), so each nullable field becomes optional,
 *   and objects are loose: a field added later must not make an older client
 *   reject every result. Optional, not `["number", "null"]` type arrays:
 *   some clients handle those poorly (#12).
 * The descriptions speak of the JSON form ("absent" there is null in memory),
 * since that is what clients read.
 *
 * Load cost: zod takes about 60 ms to load and the CLI never needs it, so
 * everything on the CLI's path imports this module with `import type` only
 * (test/e2e/cli/a-cli-run-never-loads-zod.test.ts checks it); only mcp/ and
 * tests import it as a value.
 */
import { z } from 'zod';
import { RESULT_STATUSES } from '../status.js';

const measured = (what: string) => z.number().nullable().describe(`${what}; absent when not measured`);

/**
 * A suggested call (core/next-action.ts), on an attention item or as the
 * retrieval of evidence: the engine states the verb and its
 * arguments once, and each face spells it in its own syntax (a shell
 * command, a tool call), so no face parses another's text.
 */
export const NextActionSchema = z
  .object({
    verb: z.string().describe('the verb to call, e.g. export'),
    args: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).describe('its arguments by name'),
    needs: z.array(z.string()).optional().describe('arguments the reader must supply before making the call (e.g. to: where to export)'),
    whole: z.boolean().optional().describe("true when the call stands for all of a job's output (a face with an unbounded read may show that instead)"),
  })
  .describe('a call that would act on this item: the verb and its arguments; each face renders it in its own syntax');

export const EvidenceSchema = z
  .object({
    label: z.string().describe('what this evidence is, e.g. "captured output"'),
    kind: z.enum(['excerpt', 'fact']).describe('excerpt: selected lines of captured output; fact: one established fact'),
    source: z.string().describe('the handle the evidence came from (a job id)'),
    truncated: z.boolean().describe('true when lines or bytes were left out of the excerpt'),
    excerpt: z.string().describe('the selected text; gaps say how many lines were left out'),
    total_bytes: z.number().optional().describe('bytes of the whole source'),
    total_lines: z.number().optional().describe('lines of the whole source'),
    omitted_lines: z.number().optional().describe('lines of the source not shown'),
    retrieval_action: NextActionSchema.optional().describe("the call that returns the whole source (all of a job's output)"),
    retrieval: z
      .string()
      .optional()
      .describe(
        'retrieval_action in the words of the face that rendered the package (a shell command on the CLI, a tool call over MCP); absent in a package the library returns',
      ),
  })
  .describe('one piece of evidence');

export const ArtifactSchema = z
  .object({
    name: z.string().describe('declared artifact name'),
    purpose: z.string().describe('why the artifact exists'),
    media_type: z.string().describe('media type, e.g. application/json'),
    digest: z.string().nullable().describe('sha256 digest; absent while unknown'),
    size_bytes: z.number().nullable().describe('size in bytes; absent while unknown'),
    reference: z.string().nullable().describe('where it is durable (export destination); absent while unexported'),
  })
  .describe('one declared artifact');

export const ResourceUsageSchema = z
  .object({
    wall_time_seconds: measured('wall-clock seconds'),
    cpu_seconds: measured('CPU seconds'),
    max_memory_bytes: measured('peak memory in bytes'),
    max_memory_scope: z
      .enum(['job', 'workspace'])
      .nullable()
      .describe("whose peak max_memory_bytes is: the job's own, or the workspace's (other jobs shared its memory while this one ran)"),
    peak_pids: measured('peak processes and threads'),
    storage_bytes: measured('bytes of workspace files'),
    output_bytes: measured('bytes of captured output'),
  })
  .describe('what the work really used');

export const LimitSummarySchema = z
  .object({
    name: z.string().describe('limit name, e.g. memory'),
    value: z.string().describe('the limit, formatted'),
    label: z
      .enum(['enforced', 'measured', 'simulated'])
      .describe(
        'enforced: the host really applies it; measured: only reported; simulated: applied only inside a simulated provider (fake), nothing runs for real',
      ),
    by: z.enum(['provider', 'engine', 'none']).describe('who applies it'),
  })
  .describe('one policy limit');

/** A run's verification block (#16): each check the engine judged, its outcome and the digest of its evidence. */
export const VerificationSchema = z
  .object({
    outcome: z
      .enum(['none', 'passed', 'failed', 'fault', 'skipped', 'cancelled'])
      .describe(
        'passed: every check passed; failed: one failed (status failure); fault: one could not reach a verdict (status inconclusive); skipped: the job itself did not succeed',
      ),
    checks: z
      .array(
        z
          .object({
            kind: z.enum(['verify', 'expect-file', 'expect-output']).describe('a command run after the job, a workspace file, or a pattern in the output'),
            check: z.string().describe('the check as given'),
            outcome: z
              .enum(['passed', 'failed', 'fault', 'skipped', 'cancelled'])
              .describe('fault: the check could not run or answer (not found, not executable, its time ran out)'),
            detail: z.string().describe('why, in one line (written by the engine, never taken from job output)'),
            evidence_sha256: z
              .string()
              .nullable()
              .describe("sha256 of what the verdict rests on: the check command's output, the file's bytes, the output searched"),
            exit_code: z.number().optional().describe("a check command's exit status"),
          })
          .describe('one check'),
      )
      .describe(
        'in the order judged: output patterns, files, commands, each kind in the order given; the text names a check by that number and its place among its kind',
      ),
  })
  .describe("the run's verification contract and its verdict; absent when the run asked for no check");

export const ProvenanceSchema = z
  .object({
    result_schema_version: z.number().describe('version of this result shape'),
    headspace_version: z.string().describe('the version of headspace that produced the result'),
    verb: z.string().describe('the verb that produced the result'),
    workspace_id: z.string().nullable().describe('workspace the result is about'),
    job_id: z.string().nullable().describe('job the result is about'),
    provider: z.string().nullable().describe('backend, e.g. native, docker or fake'),
    profile: z.string().nullable().describe('runtime profile'),
    environment_digest: z.string().nullable().describe('sha256 of what the job runs on'),
    image_digest: z
      .string()
      .optional()
      .describe('the container image a docker workspace runs, by content digest (sha256:…), pinned at create; absent on other providers'),
    command: z.array(z.string()).nullable().describe('the argv, as recorded (verbatim)'),
    cwd: z.string().optional().describe("the job's working directory (run cwd), e.g. /workspace/src; absent for the workspace root"),
    started_at: z.string().nullable().describe('ISO time the work started'),
    finished_at: z.string().nullable().describe('ISO time the work ended'),
    policy_summary: z.array(LimitSummarySchema).describe('every limit, labelled enforced, measured or simulated'),
    policy_digest: z.string().optional().describe('sha256 of the whole policy: equal digests, equal policies'),
    inputs: z
      .array(z.object({ destination: z.string(), size_bytes: z.number(), sha256: z.string() }).describe('one file copied in'))
      .describe('files copied into the workspace for this work'),
    exit_code: z.number().nullable().describe("the command's exit status, when it exited on its own"),
    trace_id: z.string().describe('the engine call that made this result; its journal rows (intents) carry the same id'),
    verification: VerificationSchema.optional(),
    receipt_sha256: z
      .string()
      .optional()
      .describe(
        "run: the sha256 of the job's receipt (receipt verb), binding its command, policy, inputs, verdict, output and status; pin it to verify the receipt later",
      ),
  })
  .describe('where the result came from');

const LocationSchema = z
  .object({ file: z.string().describe('as the tool printed it'), line: z.number().optional(), col: z.number().optional() })
  .describe('where a tool says it happened');

/**
 * A structured key finding (#13). `kind` names the shape (the parsed ones
 * are in findings/finding-types.ts); the fields below are present for the
 * kinds that have them (an absent count means the tool did not print it).
 * Markdown shows only `text`, one list item per line. Loose even in memory:
 * a parser may carry a field of its own kind.
 */
export const StructuredFindingSchema = z
  .looseObject({
    kind: z
      .string()
      .describe(
        'test-summary, diagnostics or exception (lifted from the output); workspace (ls), file (ls-files), job (inspect); violation, watch-sample or watch-record (watch); event or subscription (events verbs); diff-totals (diff: counts and bytes of the whole diff, and the page shown); checkpoint, output or fork-baseline (snapshot verbs and inspect: their ids as fields, e.g. checkpoint_id, output_id)',
      ),
    text: z.string().describe('the finding as markdown shows it, one line per fact'),
    tool: z.string().optional().describe('test-summary and diagnostics: the tool that printed it, e.g. pytest, tsc, gcc/clang'),
    failed: z.number().optional().describe('test-summary: failing tests'),
    passed: z.number().optional().describe('test-summary: passing tests'),
    skipped: z.number().optional().describe('test-summary: skipped tests'),
    errors: z.number().optional().describe('test-summary: tests that errored; diagnostics: distinct errors'),
    warnings: z.number().optional().describe('diagnostics: distinct warnings'),
    failures: z
      .array(
        z.looseObject({ name: z.string(), location: LocationSchema.optional(), message: z.string().optional().describe('the assertion or first error line') }),
      )
      .optional()
      .describe('test-summary: the first failing tests, in the order printed'),
    items: z
      .array(
        z.looseObject({
          file: z.string(),
          line: z.number(),
          col: z.number().optional(),
          severity: z.string(),
          message: z.string(),
          code: z.string().optional(),
        }),
      )
      .optional()
      .describe('diagnostics: the first diagnostics, errors first'),
    more: z.number().optional().describe('test-summary and diagnostics: how many were left out of the list'),
    type: z.string().optional().describe('exception: its type, e.g. ZeroDivisionError'),
    message: z.string().optional().describe('exception: its message'),
    location: LocationSchema.optional().describe('exception: the innermost frame'),
    path: z
      .string()
      .optional()
      .describe(
        'file: the workspace-relative name in its text form, the string export, declare and ls-files accept (bytes that are not UTF-8 are \\xHH, a backslash \\\\, controls and invisible characters escapes)',
      ),
    name_encoding: z.literal('escaped').optional().describe('file: present when path holds an escape, so it is not the name written as itself'),
    id: z.string().optional().describe('workspace or job: its id'),
    state: z.string().optional().describe('workspace: its lifecycle state'),
    status: z.string().optional().describe('job: its status, or running'),
  })
  .describe('a fact lifted into fields');

/** A plain one-line fact, or a structured one (JSON keeps its fields; markdown shows its text). */
export const KeyFindingSchema = z.union([z.string(), StructuredFindingSchema]);

/**
 * One suggested-attention item (#13): `kind` says what needs a decision,
 * `text` is the line markdown shows, and the subject's ids ride along.
 */
export const AttentionItemSchema = z
  .object({
    kind: z
      .string()
      .describe(
        'what needs a decision: unexported-artifact, orphaned-job, unsettled-intent, expired, missing-workspace, unverified-workspace, leftover, judgement, next-step, escape, remedy, note, watch-violation, dead-event, orphaned-batch',
      ),
    text: z.string().describe('the item as markdown shows it'),
    workspace_id: z.string().optional().describe('the workspace it is about'),
    job_id: z.string().optional().describe('the job it is about'),
    name: z.string().optional().describe('unexported-artifact: the artifact (name text form)'),
    action: NextActionSchema.optional(),
  })
  .describe('one item that needs a decision');

/** The nine sections, in the order every rendering shows them (SECTION_ORDER must match; a test checks). */
export const ResultPackageSchema = z
  .object({
    outcome_summary: z.string().describe('one sentence: what happened'),
    status: z
      .enum(RESULT_STATUSES)
      .describe(
        'success, failure, timeout, cancelled, resource_exhausted, policy_denied, infrastructure_failure, inconclusive (a verification check reached no verdict), any_exhausted (a batch any: no job succeeded), or running (inspect of an unfinished job)',
      ),
    key_findings: z
      .array(KeyFindingSchema)
      .describe('the facts that matter: a line, or an object lifted from the output (e.g. failing tests with their file:line)'),
    evidence: z.array(EvidenceSchema).describe('excerpts of output and facts, chosen for an agent'),
    artifacts: z.array(ArtifactSchema).describe('declared artifacts'),
    warnings: z.array(z.string()).describe('warnings and limitations'),
    resource_usage: ResourceUsageSchema,
    provenance: ProvenanceSchema,
    attention: z.array(AttentionItemSchema).describe('leftovers and next steps that need a decision'),
  })
  .describe('the headspace result package: nine sections in a fixed order');

export type Evidence = z.infer<typeof EvidenceSchema>;
export type ArtifactEntry = z.infer<typeof ArtifactSchema>;
export type ResourceUsage = z.infer<typeof ResourceUsageSchema>;
export type LimitSummary = z.infer<typeof LimitSummarySchema>;
export type Provenance = z.infer<typeof ProvenanceSchema>;
export type StructuredFinding = z.infer<typeof StructuredFindingSchema>;
export type KeyFinding = z.infer<typeof KeyFindingSchema>;
export type NextAction = z.infer<typeof NextActionSchema>;
export type AttentionItem = z.infer<typeof AttentionItemSchema>;
export type ResultPackage = z.infer<typeof ResultPackageSchema>;

/**
 * The JSON form of a schema: each nullable field becomes optional (renderJson
 * leaves nulls out) and each object loose; descriptions are kept where they
 * were. Covers the constructs the package uses; any other is returned as is,
 * which is right for leaves (strings, numbers, enums, records).
 */
export function jsonFormOf(schema: z.ZodType): z.ZodType {
  const described = <T extends z.ZodType>(derived: T): T => (schema.description === undefined ? derived : derived.describe(schema.description));
  if (schema instanceof z.ZodNullable || schema instanceof z.ZodOptional) return described(jsonFormOf(schema.unwrap() as z.ZodType).optional());
  if (schema instanceof z.ZodObject) return described(jsonObjectOf(schema));
  if (schema instanceof z.ZodArray) return described(z.array(jsonFormOf(schema.element as z.ZodType)));
  if (schema instanceof z.ZodUnion) return described(z.union((schema.options as z.ZodType[]).map(jsonFormOf)));
  return schema;
}

function jsonObjectOf(schema: z.ZodObject): z.ZodObject {
  const shape = Object.fromEntries(Object.entries(schema.shape).map(([key, field]) => [key, jsonFormOf(field as z.ZodType)]));
  return z.looseObject(shape);
}

/** The package as renderJson writes it: what MCP clients validate against (served whole at headspace://schema/result-package). */
export const ResultPackageJsonSchema: z.ZodObject = jsonFormOf(ResultPackageSchema) as z.ZodObject;
