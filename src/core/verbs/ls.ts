import type { EngineContext } from '../context.js';
import { reconcile } from '../reconcile.js';
import { makeResultPackage, emptyUsage, type ResultPackage } from '../result/result-package.js';
import { isoTime, provenanceFor } from '../result/package-parts.js';

export interface LsInput {
  /** Include destroyed workspaces. */
  all?: boolean;
}

/** Lists workspaces from the store only (no provider calls), so it stays fast with thousands. */
export async function listWorkspaces(ctx: EngineContext, input: LsInput = {}): Promise<ResultPackage> {
  const store = ctx.store();
  const attention = await reconcile(ctx);
  const rows = store.listWorkspaces({ includeDestroyed: input.all === true });
  const now = ctx.clock.now();
  const findings = rows.map((ws) => {
    const parts = [`${ws.id}: ${ws.state} on ${ws.provider}`, `created ${isoTime(ws.createdAt)}`];
    if (ws.purpose) parts.push(`purpose: ${ws.purpose}`);
    if (ws.owner) parts.push(`owner: ${ws.owner}`);
    if (ws.expiresAt !== null) parts.push(ws.expiresAt <= now ? 'expired' : `expires ${isoTime(ws.expiresAt)}`);
    return parts.join(', ');
  });
  return makeResultPackage({
    outcome_summary: rows.length === 0 ? 'no workspaces' : `${rows.length} workspace(s)`,
    status: 'success',
    key_findings: findings,
    evidence: [],
    artifacts: [],
    warnings: [],
    resource_usage: emptyUsage(),
    provenance: provenanceFor(ctx, 'ls', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}
