/**
 * The result package: what every verb returns. Nine sections in a fixed
 * order, one in-memory structure, rendered as markdown (bounded) or JSON
 * (never clipped). There is no raw-log field: captured output enters only as
 * evidence excerpts, with a retrieval command for the rest.
 *
 * The shape itself is result-schema.ts (a zod schema, the types inferred
 * from it); this module holds what the CLI needs at run time without
 * loading zod: the version, the section order and titles, and small helpers.
 * The types are re-exported type-only, so importing this module never
 * loads the schema. Verbs build packages with build-result.ts.
 */
import type { AttentionItem, KeyFinding, ResultPackage } from './result-schema.js';

export type {
  ArtifactEntry,
  AttentionItem,
  Evidence,
  KeyFinding,
  LimitSummary,
  Provenance,
  ResourceUsage,
  ResultPackage,
  StructuredFinding,
} from './result-schema.js';

/**
 * 2: a key finding may be an object (a fact lifted from the output, e.g. a
 * test summary with its failing tests) carrying `kind` and its one-line
 * rendering in `text`; null fields are left out of the JSON rendering.
 */
/*
 * 3: suggestions are data (#11): an attention item may carry `action` (a verb
 * and its arguments), an evidence entry carries `retrieval_action`, and
 * `retrieval` is the face's rendering of it (a shell command on the CLI, a
 * tool call over MCP), absent in a package the library returns; no text core
 * writes names a CLI flag.
 */
/*
 * 4: a new status, `inconclusive` (exit 9: a verification check reached no
 * verdict), which a client validating status against the old enum would
 * reject; and provenance.verification and provenance.receipt_sha256 on a
 * run's result (#16).
 */
export const RESULT_SCHEMA_VERSION = 4;

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
] as const satisfies readonly (keyof ResultPackage)[];

export type SectionName = (typeof SECTION_ORDER)[number];

/** Keyed by the schema's sections, so a section added there without a title fails the build (a test checks SECTION_ORDER lists them all). */
export const SECTION_TITLES: Readonly<Record<keyof ResultPackage, string>> = {
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

/** An attention item from its kind, its line and the ids of what it is about. */
export function attentionItem(kind: string, text: string, about: Omit<AttentionItem, 'kind' | 'text'> = {}): AttentionItem {
  return { kind, text, ...about };
}

/** The lines a key finding shows in markdown. */
export function findingTextLines(finding: KeyFinding): string[] {
  return typeof finding === 'string' ? [finding] : finding.text.split('\n');
}
