/**
 * Builds a result package from what a verb has: every section it leaves out
 * takes its empty default here (no findings, no evidence, every usage figure
 * unknown), so a verb states only its own facts and a section added to the
 * schema needs one default here rather than a line in every verb.
 *
 * Provenance is the one section without a default: it names the verb and the
 * engine call (trace id), which only the verb's context knows; provenanceFor
 * in package-parts.ts fills its unknowns.
 */
import { RESULT_STATUSES } from '../status.js';
import type { ResourceUsage, ResultPackage } from './result-package.js';

/** What a verb must state (outcome, status, provenance) and what it may (the rest; usage figure by figure). */
export type ResultFields = Pick<ResultPackage, 'outcome_summary' | 'status' | 'provenance'> &
  Partial<Omit<ResultPackage, 'outcome_summary' | 'status' | 'provenance' | 'resource_usage'>> & {
    resource_usage?: Partial<ResourceUsage>;
  };

/** Every usage figure unknown: a verb that measured nothing says so rather than reporting zeros. */
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

/**
 * The package in the fixed section order, each entry copied (a caller's later
 * edit to its arrays must not change a returned result). An unknown status
 * is refused here, at construction, not at rendering.
 */
export function buildResult(fields: ResultFields): ResultPackage {
  if (!RESULT_STATUSES.includes(fields.status)) {
    throw new TypeError(`unknown result status '${String(fields.status)}'`);
  }
  return {
    outcome_summary: fields.outcome_summary,
    status: fields.status,
    key_findings: (fields.key_findings ?? []).map((f) => (typeof f === 'string' ? f : { ...f })),
    evidence: (fields.evidence ?? []).map((e) => ({ ...e })),
    artifacts: (fields.artifacts ?? []).map((a) => ({ ...a })),
    warnings: [...(fields.warnings ?? [])],
    resource_usage: usageOver(fields.resource_usage ?? {}),
    provenance: { ...fields.provenance },
    attention: (fields.attention ?? []).map((a) => ({ ...a })),
  };
}

/** The figures given, every other one unknown; a figure passed as undefined stays unknown (null), never undefined. */
function usageOver(given: Partial<ResourceUsage>): ResourceUsage {
  const usage = emptyUsage();
  for (const key of Object.keys(usage) as (keyof ResourceUsage)[]) {
    const value = given[key];
    if (value !== undefined) (usage as Record<keyof ResourceUsage, unknown>)[key] = value;
  }
  return usage;
}
