/**
 * The JSON rendering of a result package: the whole package, never clipped,
 * so it is where every marker in the markdown points. Keys come in
 * SECTION_ORDER and, inside each entry, in the order result-schema.ts
 * declares them, so equal packages render to equal bytes however they were
 * built. The key lists are restated here rather than read from the schema:
 * reading them would load zod on the CLI's path; a test checks they match.
 */
import type { RenderAction } from '../next-action.js';
import type { ResultPackage } from './result-package.js';
import { SECTION_ORDER } from './result-package.js';

const EVIDENCE_KEYS = ['label', 'kind', 'source', 'truncated', 'excerpt', 'total_bytes', 'total_lines', 'omitted_lines', 'retrieval_action', 'retrieval'];
const ARTIFACT_KEYS = ['name', 'purpose', 'media_type', 'digest', 'size_bytes', 'reference'];
const USAGE_KEYS = ['wall_time_seconds', 'cpu_seconds', 'max_memory_bytes', 'max_memory_scope', 'peak_pids', 'storage_bytes', 'output_bytes'];
const PROVENANCE_KEYS = [
  'result_schema_version',
  'headspace_version',
  'verb',
  'workspace_id',
  'job_id',
  'provider',
  'profile',
  'environment_digest',
  'image_digest',
  'command',
  'cwd',
  'started_at',
  'finished_at',
  'policy_summary',
  'policy_digest',
  'inputs',
  'exit_code',
  'trace_id',
  'verification',
  'receipt_sha256',
];

/**
 * A copy of `value` with `known` keys first, in that order, then any other keys
 * sorted. Keys whose value is undefined or null are left out: in the JSON
 * rendering an absent field means "unknown" (#13: null noise costs an
 * agent's context and says nothing; `explain result` documents it).
 */
function ordered(value: object, known: readonly string[]): Record<string, unknown> {
  const source = value as Record<string, unknown>;
  const extra = Object.keys(source)
    .filter((key) => !known.includes(key))
    .sort();
  const out: Record<string, unknown> = {};
  for (const key of [...known, ...extra]) {
    if (Object.hasOwn(source, key) && source[key] !== undefined && source[key] !== null) out[key] = source[key];
  }
  return out;
}

export interface RenderJsonOptions {
  /**
   * The face's words for a suggested call: with it, each evidence entry's
   * `retrieval` is its `retrieval_action` rendered (a command a script can
   * paste), beside the action itself.
   */
  renderAction?: RenderAction;
}

/**
 * `pkg` as pretty-printed JSON (two-space indent, trailing newline). Never
 * clipped or shrunk: markdown markers send readers here for the full text.
 * Lone surrogates come out as `\udXXX` escapes, so the output is valid UTF-8.
 */
export function renderJson(pkg: ResultPackage, options: RenderJsonOptions = {}): string {
  const { renderAction } = options;
  const sections: Record<string, unknown> = {
    ...pkg,
    evidence: pkg.evidence.map((entry) =>
      ordered(
        renderAction === undefined || entry.retrieval_action === undefined ? entry : { ...entry, retrieval: renderAction(entry.retrieval_action) },
        EVIDENCE_KEYS,
      ),
    ),
    artifacts: pkg.artifacts.map((entry) => ordered(entry, ARTIFACT_KEYS)),
    resource_usage: ordered(pkg.resource_usage, USAGE_KEYS),
    provenance: ordered(pkg.provenance, PROVENANCE_KEYS),
  };
  return `${JSON.stringify(ordered(sections, SECTION_ORDER), null, 2)}\n`;
}
