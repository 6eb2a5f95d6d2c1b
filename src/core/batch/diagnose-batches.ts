/**
 * What doctor says about batches (#16): each unfinished batch whose driver
 * is gone, with the call that finishes it. Reported, never repaired here:
 * finishing a batch starts its queued jobs, which is the caller's decision
 * (batch-wait, or batch-cancel to start none).
 */
import { nextAction } from '../next-action.js';
import { attentionItem, type AttentionItem } from '../result/result-package.js';
import { isOwnerAlive } from '../store/owner.js';
import type { SqliteStore } from '../store/sqlite-store.js';
import { BatchRecords } from './batch-records.js';

export function diagnoseBatches(store: SqliteStore): { findings: string[]; attention: AttentionItem[] } {
  const open = new BatchRecords(store).unfinishedGroups();
  const orphaned = open.filter((g) => g.driver === null || !isOwnerAlive(g.driver));
  if (open.length === 0) return { findings: [], attention: [] };
  return {
    findings: [`batches unfinished: ${open.length} (${orphaned.length} with no live driver)`],
    attention: orphaned.flatMap((g) => [
      attentionItem(
        'orphaned-batch',
        `batch ${g.id} (${g.strategy}) has no live driver${g.driver ? ` (pid ${g.driver.pid} is gone)` : ''}: batch-wait finishes it (started jobs are watched, never re-run)`,
        { action: nextAction('batch-wait', { groupId: g.id }) },
      ),
      attentionItem('next-step', `or cancel batch ${g.id}: its queued jobs never start`, { action: nextAction('batch-cancel', { groupId: g.id }) }),
    ]),
  };
}
