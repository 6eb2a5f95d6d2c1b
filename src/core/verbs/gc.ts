import type { EngineContext } from '../context.js';
import { nextAction, type NextAction } from '../next-action.js';
import { attentionItem, type AttentionItem, type ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { destroyWorkspace } from './destroy.js';

/**
 * Expires workspaces past their TTL and destroys those with nothing left to
 * lose, reporting each. A running workspace is left alone and reported.
 */
export async function collectGarbage(ctx: EngineContext): Promise<ResultPackage> {
  const store = ctx.store();
  const now = ctx.clock.now();
  const findings: string[] = [];
  const attention: AttentionItem[] = [];
  let expired = 0;
  let destroyed = 0;
  for (const ws of store.listWorkspaces()) {
    if (ws.expiresAt === null || ws.expiresAt > now) continue;
    if (ws.state === 'running') {
      attention.push(attentionItem('expired', `workspace ${ws.id} expired but a job is running; it was left alone`, { workspace_id: ws.id }));
      continue;
    }
    if (ws.state !== 'expired') {
      if (ws.state !== 'ready') {
        attention.push(
          attentionItem('expired', `workspace ${ws.id} expired while ${ws.state}; destroy it`, {
            workspace_id: ws.id,
            action: nextAction('destroy', { workspaceId: ws.id }),
          }),
        );
        continue;
      }
      store.moveWorkspace(ws.id, 'expired', ctx.clock.now());
      findings.push(`workspace ${ws.id} marked expired`);
      expired++;
    }
    try {
      await destroyWorkspace(ctx, { workspaceId: ws.id });
      findings.push(`workspace ${ws.id} destroyed (expired at ${new Date(ws.expiresAt).toISOString()})`);
      destroyed++;
    } catch (error) {
      // What kept it (an artifact never exported, a sealed output) is the caller's to act on: its way out as attention,
      // not only a warning (a new user saw "0 destroyed" beside "marked expired" and no next step).
      const action = (error as { action?: NextAction }).action;
      attention.push(
        attentionItem('expired', `workspace ${ws.id} expired and was kept: ${(error as Error).message}`, {
          workspace_id: ws.id,
          ...(action === undefined ? {} : { action }),
        }),
      );
    }
  }
  const parts = [
    `gc destroyed ${destroyed} expired workspace(s)`,
    ...(expired > 0 ? [`marked ${expired} expired`] : []),
    ...(attention.length > 0 ? [`left ${attention.length} (see attention)`] : []),
  ];
  return buildResult({
    outcome_summary: findings.length || attention.length ? parts.join('; ') : 'nothing to collect',
    status: 'success',
    key_findings: findings,
    provenance: provenanceFor(ctx, 'gc', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}
