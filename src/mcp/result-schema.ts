/**
 * The result package as a zod schema: every tool's output schema, so a client
 * can validate `structuredContent` (the SDK's client does). It mirrors
 * `core/result/result-package.ts`; the type check at the bottom fails the
 * build if a field is removed or retyped there without changing this file.
 *
 * Objects are loose (extra properties allowed): a field added to the package
 * later must not make an older client reject every result.
 */
import { z } from 'zod';
import type { ResultPackage } from '../core/result/result-package.js';
import { RESULT_STATUSES, type ResultStatus } from '../core/status.js';

const nullableNumber = (what: string) => z.number().nullable().describe(`${what}; null when not measured`);

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
    retrieval: z.string().optional().describe('a shell command that returns the whole source'),
  })
  .describe('one piece of evidence');

export const ArtifactSchema = z
  .looseObject({
    name: z.string().describe('declared artifact name'),
    purpose: z.string().describe('why the artifact exists'),
    media_type: z.string().describe('media type, e.g. application/json'),
    digest: z.string().nullable().describe('sha256 digest, or null while unknown'),
    size_bytes: z.number().nullable().describe('size in bytes, or null while unknown'),
    reference: z.string().nullable().describe('where it is durable (export destination), or null while unexported'),
  })
  .describe('one declared artifact');

export const ResourceUsageSchema = z
  .looseObject({
    wall_time_seconds: nullableNumber('wall-clock seconds'),
    cpu_seconds: nullableNumber('CPU seconds'),
    max_memory_bytes: nullableNumber('peak memory in bytes'),
    peak_pids: nullableNumber('peak processes and threads'),
    storage_bytes: nullableNumber('bytes of workspace files'),
    output_bytes: nullableNumber('bytes of captured output'),
  })
  .describe('what the work really used');

export const LimitSummarySchema = z
  .looseObject({
    name: z.string().describe('limit name, e.g. memory'),
    value: z.string().describe('the limit, formatted'),
    label: z.enum(['enforced', 'measured']).describe('enforced: the host really applies it; measured: only reported'),
    by: z.enum(['provider', 'engine', 'none']).describe('who applies it'),
  })
  .describe('one policy limit');

export const ProvenanceSchema = z
  .looseObject({
    result_schema_version: z.number().describe('version of this result shape'),
    headspace_version: z.string().describe('headspace version that produced the result'),
    verb: z.string().describe('the verb that produced the result'),
    workspace_id: z.string().nullable().describe('workspace the result is about'),
    job_id: z.string().nullable().describe('job the result is about'),
    provider: z.string().nullable().describe('backend, e.g. native or fake'),
    profile: z.string().nullable().describe('runtime profile'),
    environment_digest: z.string().nullable().describe('sha256 of what the job runs on'),
    command: z.array(z.string()).nullable().describe('the argv, as recorded (verbatim)'),
    started_at: z.string().nullable().describe('ISO time the work started'),
    finished_at: z.string().nullable().describe('ISO time the work ended'),
    policy_summary: z.array(LimitSummarySchema).describe('every limit, labelled enforced or measured'),
    inputs: z
      .array(z.looseObject({ destination: z.string(), size_bytes: z.number(), sha256: z.string() }).describe('one file copied in'))
      .describe('files copied into the workspace for this work'),
    exit_code: z.number().nullable().describe('the command\'s exit status, when it exited on its own'),
  })
  .describe('where the result came from');

export const ResultPackageSchema = z
  .looseObject({
    outcome_summary: z.string().describe('one sentence: what happened'),
    status: z.enum(RESULT_STATUSES as [ResultStatus, ...ResultStatus[]]).describe('success, failure, timeout, cancelled, resource_exhausted, policy_denied or infrastructure_failure'),
    key_findings: z.array(z.string()).describe('the facts that matter, one per line'),
    evidence: z.array(EvidenceSchema).describe('excerpts of output and facts, chosen for an agent'),
    artifacts: z.array(ArtifactSchema).describe('declared artifacts'),
    warnings: z.array(z.string()).describe('warnings and limitations'),
    resource_usage: ResourceUsageSchema,
    provenance: ProvenanceSchema,
    attention: z.array(z.string()).describe('leftovers and next steps that need a decision'),
  })
  .describe('the headspace result package: nine sections in a fixed order');

// Compile-time drift check: every ResultPackage must satisfy the schema's type
// (ignoring the index signature that loose objects add).
type WithoutIndex<T> = T extends (infer U)[] ? WithoutIndex<U>[] : T extends object ? { [K in keyof T as string extends K ? never : K]: WithoutIndex<T[K]> } : T;
type Assignable<T extends U, U> = T;
export type ResultPackageMatchesSchema = Assignable<ResultPackage, WithoutIndex<z.output<typeof ResultPackageSchema>>>;
