/**
 * batch-ls: the batches of this home, newest first, one line each. A detached
 * batch's group id was the only way back to it (batch status GROUP); an id
 * lost with a terminal's scrollback left its batch findable only in the
 * dashboard. The list is the dashboard's own read (reads/batch-list.ts), from
 * the store alone: no driver is adopted, no job looked at.
 */
import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { attentionItem, type AttentionItem, type ResultPackage, type StructuredFinding } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { DEFAULT_BATCHES, MAX_BATCHES, listBatches, type BatchSummary } from '../reads/batch-list.js';

export interface BatchLsInput {
  /** At most this many, the newest (default 100, at most 1000). */
  limit?: number;
}

export async function batchList(ctx: EngineContext, input: BatchLsInput = {}): Promise<ResultPackage> {
  const startedAt = ctx.clock.now();
  const { total, batches } = await listBatches(ctx, input);
  const shown = batches.length;
  const summary = total === 0 ? 'no batches' : shown < total ? `${total} batch(es); the newest ${shown} shown` : `${total} batch(es)`;
  const attention: AttentionItem[] = [];
  if (shown < total)
    attention.push(
      attentionItem('next-step', `${total - shown} older batch(es) are left out; to list more`, {
        action: nextAction('batch-ls', { limit: Math.min(MAX_BATCHES, Math.max(total, DEFAULT_BATCHES)) }),
      }),
    );
  if (shown > 0)
    attention.push(
      attentionItem('next-step', `to see a batch in full: its jobs, winners and cleanup`, { action: nextAction('batch-status', { groupId: batches[0]!.id }) }),
    );
  return buildResult({
    outcome_summary: summary,
    status: 'success',
    key_findings: batches.map(batchFinding),
    provenance: provenanceFor(ctx, 'batch-ls', { startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}

/** One batch as a line for a person and an object for a reader of JSON. */
function batchFinding(b: BatchSummary): StructuredFinding {
  const join = b.strategy === 'quorum' && b.quorum !== null ? `quorum ${b.quorum}` : b.strategy;
  const parts = [`${b.id}: ${b.state === 'finished' ? `finished ${b.status}` : 'running'} (${join}, ${b.members} job(s))`, `created ${b.created_at}`];
  if (b.finished_at !== null) parts.push(`finished ${b.finished_at}`);
  if (b.summary) parts.push(b.summary);
  return {
    kind: 'batch',
    text: parts.join(', '),
    group_id: b.id,
    strategy: b.strategy,
    ...(b.quorum !== null ? { quorum: b.quorum } : {}),
    state: b.state,
    ...(b.status !== null ? { status: b.status } : {}),
    members: b.members,
    created_at: b.created_at,
    ...(b.finished_at !== null ? { finished_at: b.finished_at } : {}),
  };
}
