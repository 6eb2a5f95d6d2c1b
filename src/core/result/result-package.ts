/**
 * The result package: what every verb returns. Nine sections in a fixed
 * order, one in-memory structure, rendered as markdown (bounded) or JSON
 * (never clipped). There is no raw-log field: captured output enters only as
 * evidence excerpts, with a retrieval command for the rest.
 */
import type { ResultStatus } from '../status.js';
import { RESULT_STATUSES } from '../status.js';

/**
 * 2: a key finding may be an object (a fact lifted from the output, e.g. a
 * test summary with its failing tests) carrying `kind` and its one-line
 * rendering in `text`; null fields are left out of the JSON rendering.
 */
export const RESULT_SCHEMA_VERSION = 2;

export const SECTION_ORDER = [
  'outcome_summary',
  'status',
  'key_findings',
  'evidence',
  'artifacts',
  'warnings',
  'resource_usage',
  'provenance',
  'attention',
] as const;

export type SectionName = (typeof SECTION_ORDER)[number];

export const SECTION_TITLES: Readonly<Record<SectionName, string>> = {
  outcome_summary: 'Outcome summary',
  status: 'Status',
  key_findings: 'Key findings',
  evidence: 'Evidence',
  artifacts: 'Artifacts',
  warnings: 'Warnings and limitations',
  resource_usage: 'Resource usage',
  provenance: 'Provenance',
  attention: 'Suggested attention',
};

export interface Evidence {
  label: string;
  /** `excerpt` (selected lines of captured output) or `fact`. */
  kind: 'excerpt' | 'fact';
  /** Handle the excerpt came from (a job id). */
  source: string;
  /** True when lines or bytes were left out of `excerpt`. */
  truncated: boolean;
  excerpt: string;
  /** Bytes and lines of the whole source, so a reader knows what was left out. */
  total_bytes?: number;
  total_lines?: number;
  /** Lines of the source not shown. */
  omitted_lines?: number;
  /** Pasted into a shell, returns the full source. */
  retrieval?: string;
}

export interface ArtifactEntry {
  name: string;
  purpose: string;
  media_type: string;
  digest: string | null;
  size_bytes: number | null;
  /** Where it is durable (export destination), or null while unexported. */
  reference: string | null;
}

export interface ResourceUsage {
  wall_time_seconds: number | null;
  cpu_seconds: number | null;
  max_memory_bytes: number | null;
  /** Whose peak max_memory_bytes is: the job's own, or the workspace's (jobs ran beside it, sharing its cgroup). */
  max_memory_scope: 'job' | 'workspace' | null;
  peak_pids: number | null;
  storage_bytes: number | null;
  output_bytes: number | null;
}

export interface LimitSummary {
  name: string;
  value: string;
  /**
   * `enforced`: the host really applies it; `measured`: only reported;
   * `simulated`: applied only inside a simulated provider (the fake), where
   * nothing runs for real.
   */
  label: 'enforced' | 'measured' | 'simulated';
  by: 'provider' | 'engine' | 'none';
}

export interface Provenance {
  result_schema_version: number;
  headspace_version: string;
  verb: string;
  workspace_id: string | null;
  job_id: string | null;
  provider: string | null;
  profile: string | null;
  environment_digest: string | null;
  /** The container image a docker workspace runs, by content digest (`sha256:…`), pinned at create; absent on other providers. */
  image_digest?: string;
  command: string[] | null;
  /** The job's working directory (run --cwd) as the job saw it, e.g. `/workspace/src`; absent for the workspace root. */
  cwd?: string;
  started_at: string | null;
  finished_at: string | null;
  policy_summary: LimitSummary[];
  /** sha256 of the workspace's whole policy (canonical JSON): equal digests, equal policies. Absent when no workspace is involved. */
  policy_digest?: string;
  inputs: Array<{ destination: string; size_bytes: number; sha256: string }>;
  exit_code: number | null;
  /** The engine call that made this result; its journal rows carry the same id. */
  trace_id: string;
}

/**
 * A structured key finding: `kind` names its shape (see
 * core/result/findings/finding-types.ts for the parsed ones), `text` is what
 * markdown shows, one list item per line.
 */
export interface StructuredFinding {
  kind: string;
  text: string;
  [field: string]: unknown;
}

/**
 * One suggested-attention item (#13): `kind` says what needs a decision
 * (`unexported-artifact`, `orphaned-job`, `unsettled-intent`, `expired`,
 * `missing-workspace`, `unverified-workspace`, `leftover`, `judgement`,
 * `next-step`, `escape`, `remedy`, `note`), `text` is the line markdown shows, and
 * the subject's ids ride along (`workspace_id`, `job_id`, `name`).
 */
export interface AttentionItem {
  kind: string;
  text: string;
  workspace_id?: string;
  job_id?: string;
  name?: string;
}

/** An attention item from its kind, its line and the ids of what it is about. */
export function attentionItem(kind: string, text: string, about: Omit<AttentionItem, 'kind' | 'text'> = {}): AttentionItem {
  return { kind, text, ...about };
}

/** A plain one-line fact, or a structured one (JSON keeps its fields; markdown shows its text). */
export type KeyFinding = string | StructuredFinding;

/** The lines a key finding shows in markdown. */
export function findingTextLines(finding: KeyFinding): string[] {
  return typeof finding === 'string' ? [finding] : finding.text.split('\n');
}

export interface ResultPackage {
  outcome_summary: string;
  status: ResultStatus;
  key_findings: KeyFinding[];
  evidence: Evidence[];
  artifacts: ArtifactEntry[];
  warnings: string[];
  resource_usage: ResourceUsage;
  provenance: Provenance;
  attention: AttentionItem[];
}

export function emptyUsage(): ResourceUsage {
  return {
    wall_time_seconds: null,
    cpu_seconds: null,
    max_memory_bytes: null,
    max_memory_scope: null,
    peak_pids: null,
    storage_bytes: null,
    output_bytes: null,
  };
}

/** Builds a package in the fixed section order; an unknown status is refused at construction. */
export function makeResultPackage(fields: ResultPackage): ResultPackage {
  if (!RESULT_STATUSES.includes(fields.status)) {
    throw new TypeError(`unknown result status '${String(fields.status)}'`);
  }
  return {
    outcome_summary: fields.outcome_summary,
    status: fields.status,
    key_findings: fields.key_findings.map((f) => (typeof f === 'string' ? f : { ...f })),
    evidence: fields.evidence.map((e) => ({ ...e })),
    artifacts: fields.artifacts.map((a) => ({ ...a })),
    warnings: [...fields.warnings],
    resource_usage: { ...fields.resource_usage },
    provenance: { ...fields.provenance },
    attention: fields.attention.map((a) => ({ ...a })),
  };
}
