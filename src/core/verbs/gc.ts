import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
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
  const warnings: string[] = [];
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
    }
    try {
      await destroyWorkspace(ctx, { workspaceId: ws.id });
      findings.push(`workspace ${ws.id} destroyed (expired at ${new Date(ws.expiresAt).toISOString()})`);
    } catch (error) {
      warnings.push(`workspace ${ws.id} expired but could not be destroyed: ${(error as Error).message}`);
    }
  }
  return buildResult({
    outcome_summary: findings.length ? `gc expired or destroyed ${findings.filter((f) => f.includes('destroyed')).length} workspace(s)` : 'nothing to collect',
    status: 'success',
    key_findings: findings,
    warnings,
    provenance: provenanceFor(ctx, 'gc', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}
