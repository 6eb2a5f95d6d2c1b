/**
 * What doctor says about events (#15): the subscriptions' totals, and each
 * dead event (claimed max-deliveries times, never acknowledged) as an
 * attention item with the call that revives it. Reads only.
 */
import { nextAction } from '../next-action.js';
import { attentionItem, type AttentionItem } from '../result/result-package.js';
import type { SqliteStore } from '../store/sqlite-store.js';

/** Dead events listed one by one; past this, one line counts the rest. */
const LISTED = 20;

export function diagnoseEvents(store: SqliteStore): { findings: string[]; attention: AttentionItem[] } {
  const subs = store.events.listSubscriptions();
  const dead = store.events.deadDeliveries();
  const findings: string[] = [];
  if (subs.length > 0) {
    const sum = (key: 'pending' | 'inFlight' | 'acked' | 'dead') => subs.reduce((n, s) => n + s.counts[key], 0);
    findings.push(
      `events: ${subs.length} subscription(s); ${sum('pending')} pending, ${sum('inFlight')} in flight, ${sum('acked')} acked, ${sum('dead')} dead`,
    );
  }
  const attention = dead.slice(0, LISTED).map((d) =>
    attentionItem(
      'dead-event',
      `event ${d.event.id} (${d.event.name}, job ${d.event.jobId}) is dead for subscription ${d.subscriptionId}: claimed ${d.deliveries} time(s), never acknowledged`,
      {
        workspace_id: d.event.workspaceId,
        job_id: d.event.jobId,
        action: nextAction('events-requeue', { subscriptionId: d.subscriptionId, eventIds: d.event.id }),
      },
    ),
  );
  if (dead.length > LISTED) attention.push(attentionItem('dead-event', `… and ${dead.length - LISTED} more dead event(s) (events ls counts them)`));
  return { findings, attention };
}
