/**
 * The batches of this home, newest first (#21): the dashboard's list of
 * batches. One batch in full is `batch-status` (a result package, from the
 * same records); this is the list that verb lacks, from the store alone.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { batchRecords } from '../batch/drive-batch.js';
import { isoTime } from '../result/package-parts.js';

export const DEFAULT_BATCHES = 100;
export const MAX_BATCHES = 1000;

export interface BatchSummary {
  id: string;
  strategy: string;
  quorum: number | null;
  /** running: the join has not decided; finished: decided and cleaned up. */
  state: string;
  /** The outcome once finished; null while running. */
  status: string | null;
  summary: string | null;
  members: number;
  created_at: string;
  finished_at: string | null;
}

export async function listBatches(ctx: EngineContext, input: { limit?: number } = {}): Promise<{ total: number; batches: BatchSummary[] }> {
  const limit = input.limit ?? DEFAULT_BATCHES;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_BATCHES)
    throw new EngineError('BAD_ARGUMENT', `limit takes a whole number from 1 to ${MAX_BATCHES}`, { hint: `e.g. ${DEFAULT_BATCHES}` });
  const { total, groups } = batchRecords(ctx).recentGroups(limit);
  return {
    total,
    batches: groups.map((g) => ({
      id: g.id,
      strategy: g.strategy,
      quorum: g.quorum,
      state: g.state,
      status: g.state === 'finished' ? g.status : null,
      summary: g.summary,
      members: g.members,
      created_at: isoTime(g.createdAt)!,
      finished_at: isoTime(g.finishedAt),
    })),
  };
}
