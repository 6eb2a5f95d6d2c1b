import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { attentionItem, type AttentionItem, type ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { destroyWorkspace } from './destroy.js';
import { toEngineError } from '../errors.js';

/**
 * Expires workspaces past their TTL and destroys those with nothing left to
 * lose, reporting each. A running workspace is left alone and reported.
 *
 * A destroy the provider failed (an engine down or not answering: exit 7's
 * category) makes the whole pass infrastructure_failure: it once exited 0
 * and said "left N", as if each had been kept on purpose. The provider's
 * other expired workspaces are then not tried: against an engine that
 * accepts and never answers, each try cost its own bound (10 s) for the same
 * answer. They stay expired and recorded, each named with gc as its next step.
 */
export async function collectGarbage(ctx: EngineContext): Promise<ResultPackage> {
  const store = ctx.store();
  const now = ctx.clock.now();
  const findings: string[] = [];
  const attention: AttentionItem[] = [];
  let expired = 0;
  let destroyed = 0;
  /** Providers a destroy failed on in this pass, with that failure, named in each of their workspaces left untried. */
  const failedProviders = new Map<string, { workspaceId: string; message: string }>();
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
    const failed = failedProviders.get(ws.provider);
    if (failed !== undefined) {
      attention.push(
        attentionItem(
          'expired',
          `workspace ${ws.id} expired and was not tried: the ${ws.provider} provider failed on ${failed.workspaceId} (${failed.message})`,
          {
            workspace_id: ws.id,
            // The pass again once the provider answers (a destroy of it now would fail the same way).
            action: nextAction('gc'),
          },
        ),
      );
      continue;
    }
    try {
      await destroyWorkspace(ctx, { workspaceId: ws.id });
      findings.push(`workspace ${ws.id} destroyed (expired at ${new Date(ws.expiresAt).toISOString()})`);
      destroyed++;
    } catch (error) {
      const failure = toEngineError(error);
      if (failure.category === 'infrastructure_failure') {
        failedProviders.set(ws.provider, { workspaceId: ws.id, message: failure.message.slice(0, 200) });
        attention.push(
          attentionItem(
            'expired',
            `workspace ${ws.id} expired and could not be destroyed: ${failure.message}${failure.hint === undefined ? '' : ` (${failure.hint})`}`,
            {
              workspace_id: ws.id,
              action: failure.action ?? nextAction('destroy', { workspaceId: ws.id }),
            },
          ),
        );
        continue;
      }
      // What kept it (an artifact never exported, a sealed output) is the caller's to act on: its way out as attention,
      // not only a warning (a new user saw "0 destroyed" beside "marked expired" and no next step).
      attention.push(
        attentionItem('expired', `workspace ${ws.id} expired and was kept: ${failure.message}`, {
          workspace_id: ws.id,
          ...(failure.action === undefined ? {} : { action: failure.action }),
        }),
      );
    }
  }
  const parts = [
    `gc destroyed ${destroyed} expired workspace(s)`,
    ...(expired > 0 ? [`marked ${expired} expired`] : []),
    ...(attention.length > 0 ? [`left ${attention.length} (see attention)`] : []),
    ...[...failedProviders.keys()].map((name) => `the ${name} provider failed: retry once it answers`),
  ];
  return buildResult({
    outcome_summary: findings.length || attention.length ? parts.join('; ') : 'nothing to collect',
    status: failedProviders.size > 0 ? 'infrastructure_failure' : 'success',
    key_findings: findings,
    provenance: provenanceFor(ctx, 'gc', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}
