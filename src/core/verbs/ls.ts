import type { EngineContext } from '../context.js';
import { reconcile } from '../reconcile.js';
import type { ResultPackage, StructuredFinding } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
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
  // One object per workspace (#13): JSON readers get fields, markdown shows the line.
  const findings: StructuredFinding[] = rows.map((ws) => {
    const parts = [`${ws.id}: ${ws.state} on ${ws.provider}`, `created ${isoTime(ws.createdAt)}`];
    if (ws.purpose) parts.push(`purpose: ${ws.purpose}`);
    if (ws.owner) parts.push(`owner: ${ws.owner}`);
    if (ws.expiresAt !== null) parts.push(ws.expiresAt <= now ? 'expired' : `expires ${isoTime(ws.expiresAt)}`);
    return {
      kind: 'workspace',
      text: parts.join(', '),
      id: ws.id,
      state: ws.state,
      provider: ws.provider,
      profile: ws.profile,
      created_at: isoTime(ws.createdAt),
      ...(ws.purpose ? { purpose: ws.purpose } : {}),
      ...(ws.owner ? { owner: ws.owner } : {}),
      ...(ws.expiresAt !== null ? { expires_at: isoTime(ws.expiresAt), expired: ws.expiresAt <= now } : {}),
    };
  });
  return buildResult({
    outcome_summary: rows.length === 0 ? 'no workspaces' : `${rows.length} workspace(s)`,
    status: 'success',
    key_findings: findings,
    provenance: provenanceFor(ctx, 'ls', { startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}
