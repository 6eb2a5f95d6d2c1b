import { readFileSync } from 'node:fs';
import type { EngineContext } from '../context.js';
import type { Evidence } from '../result/result-package.js';
import { selectExcerpt } from '../result/select-excerpt.js';
import type { JobRecord } from '../store/sqlite-store.js';

/** Default bytes of captured output chosen for a result; the markdown bound may shrink it further. */
export const EXCERPT_BUDGET_BYTES = 5000;

export function readJobLog(ctx: EngineContext, jobId: string): Buffer | null {
  try {
    return readFileSync(ctx.logPath(jobId));
  } catch {
    return null;
  }
}

/** The job's captured output as one evidence excerpt, chosen for an agent. */
export function jobOutputEvidence(ctx: EngineContext, job: JobRecord, budgetBytes = EXCERPT_BUDGET_BYTES): Evidence {
  const log = readJobLog(ctx, job.id);
  const retrieval = ctx.retrievalCommand(job.id);
  if (log === null) {
    return { label: 'captured output', kind: 'fact', source: job.id, truncated: false, excerpt: '(the captured output is no longer kept)', total_bytes: job.outputBytes };
  }
  const picked = selectExcerpt(log, { budgetBytes, retrieval });
  const clippedAtBudget = job.outputBytes > job.storedBytes;
  return {
    label: 'captured output',
    kind: 'excerpt',
    source: job.id,
    truncated: picked.truncated || clippedAtBudget,
    excerpt: picked.excerpt === '' ? '(no output)' : picked.excerpt,
    total_bytes: job.outputBytes,
    total_lines: picked.total_lines,
    omitted_lines: picked.omitted_lines,
    retrieval,
  };
}
