import type { EngineContext } from './context.js';
import { nextAction } from './next-action.js';
import { attentionItem, type AttentionItem } from './result/result-package.js';
import { isOwnerAlive } from './store/owner.js';
import type { ArtifactRecord, WorkspaceRecord } from './store/sqlite-store.js';
import { unexportedAttention } from './result/artifact-view.js';

/**
 * Runs at the entry of every verb (except stop). It REPORTS leftovers as
 * attention items and never fixes them: silently "repairing" state hides
 * the crash that caused it (doctor --repair is the deliberate path).
 */
export async function reconcile(ctx: EngineContext, scope: { workspaceId?: string; checkProvider?: boolean } = {}): Promise<AttentionItem[]> {
  // The store's part in one read transaction: one snapshot, and one read lock instead of one per query (#20).
  const { attention, ws } = ctx.store().readConsistently(() => storeAttention(ctx, scope.workspaceId));
  if (ws && scope.checkProvider && ws.state !== 'destroyed' && ws.state !== 'requested') {
    try {
      const provider = await ctx.provider(ws.provider);
      const view = await provider.inspect(ws.id);
      if (view.state === 'missing') {
        attention.push(
          attentionItem(
            'missing-workspace',
            `workspace ${ws.id} is recorded as ${ws.state} but the ${ws.provider} provider ${view.lost ? `lost it: ${view.lost}` : 'no longer knows it'}; destroy it`,
            {
              workspace_id: ws.id,
              action: nextAction('destroy', { workspaceId: ws.id }),
            },
          ),
        );
      }
    } catch (error) {
      attention.push(
        attentionItem(
          'unverified-workspace',
          `the ${ws.provider} provider could not be asked about workspace ${ws.id} (${(error as Error).message}); its state is unverified`,
          { workspace_id: ws.id },
        ),
      );
    }
  }
  return attention;
}
/**
 * reconcile's store part alone, for a verb that reads its own checks in one read transaction and
 * reconciles in it too (create, run, destroy: one read lock instead of two or three, #20). Joins the
 * caller's transaction. `known` is the scoped workspace and its artifacts as the caller has just read
 * them in that transaction, so they are not read again. No provider is asked (no `checkProvider`).
 */
export function reconcileStore(
  ctx: EngineContext,
  workspaceId?: string,
  known?: { ws: WorkspaceRecord; artifacts?: readonly ArtifactRecord[] },
): AttentionItem[] {
  return ctx.store().readConsistently(() => storeAttention(ctx, workspaceId, known)).attention;
}

/** What the store alone shows: unsettled intents and orphaned jobs of dead processes, and the scoped workspace's unexported artifacts and expiry. */
function storeAttention(
  ctx: EngineContext,
  workspaceId: string | undefined,
  known?: { ws: WorkspaceRecord; artifacts?: readonly ArtifactRecord[] },
): { attention: AttentionItem[]; ws: WorkspaceRecord | undefined } {
  const store = ctx.store();
  const attention: AttentionItem[] = [];
  const now = ctx.clock.now();
  for (const intent of store.openIntents()) {
    if (workspaceId && intent.workspaceId !== workspaceId) continue;
    if (isOwnerAlive(intent.owner)) continue;
    // A destroy cut short (killed, say, while it waited on a held lock) may have taken part of the workspace away
    // already: the record still reads as before, and the only way on is to destroy it again, which finishes it and
    // settles the intent. Naming doctor here sent the caller through a repair plan that only says the same thing.
    if (intent.op === 'remove') {
      attention.push(
        attentionItem(
          'unsettled-intent',
          // "intent #N " as every unsettled intent is named, so doctor's report and a reader find it by that.
          `the destroy of workspace ${intent.workspaceId} was cut short: intent #${intent.id} was never settled and its process (pid ${intent.owner.pid}) is gone; the workspace may be partly removed: destroy it again to finish`,
          { workspace_id: intent.workspaceId, action: nextAction('destroy', { workspaceId: intent.workspaceId }) },
        ),
      );
      continue;
    }
    attention.push(
      attentionItem(
        'unsettled-intent',
        `intent #${intent.id} (${intent.op} on workspace ${intent.workspaceId}${intent.jobId ? `, job ${intent.jobId}` : ''}) was never settled and its process (pid ${intent.owner.pid}) is gone; doctor's repair plan settles it`,
        { workspace_id: intent.workspaceId, ...(intent.jobId ? { job_id: intent.jobId } : {}), action: nextAction('doctor', { repair: true }) },
      ),
    );
  }
  for (const job of store.runningJobs()) {
    if (workspaceId && job.workspaceId !== workspaceId) continue;
    if (isOwnerAlive(job.owner)) continue;
    attention.push(
      attentionItem(
        'orphaned-job',
        `job ${job.id} in workspace ${job.workspaceId} is recorded as running but its process (pid ${job.owner.pid}) is gone; end it`,
        {
          workspace_id: job.workspaceId,
          job_id: job.id,
          action: nextAction('stop', { workspaceId: job.workspaceId, apply: true }),
        },
      ),
    );
  }
  const given = known !== undefined && known.ws.id === workspaceId ? known : undefined;
  const ws = workspaceId === undefined ? undefined : (given?.ws ?? store.getWorkspace(workspaceId));
  if (ws) {
    if (ws.state !== 'destroyed') attention.push(...unexportedAttention(store, ws.id, given?.artifacts));
    if (ws.expiresAt !== null && ws.expiresAt <= now && ws.state !== 'expired' && ws.state !== 'destroyed') {
      attention.push(
        attentionItem('expired', `workspace ${ws.id} passed its expiry at ${new Date(ws.expiresAt).toISOString()}; the next gc will expire and remove it`, {
          workspace_id: ws.id,
        }),
      );
    }
  }
  return { attention, ws };
}
