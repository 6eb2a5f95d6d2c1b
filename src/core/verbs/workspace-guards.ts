import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import { validateId } from '../ids.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';

export function requireWorkspace(ctx: EngineContext, workspaceId: string): WorkspaceRecord {
  validateId('workspace', workspaceId);
  const ws = ctx.store().getWorkspace(workspaceId);
  if (!ws) throw new EngineError('WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`, { hint: 'list the workspaces', action: nextAction('ls') });
  return ws;
}

/**
 * A workspace that may take a new job, or be forked: refused (exit 2) once
 * past its TTL, naming when it expired, even before gc has marked it expired.
 * `refused` says what the refusal withholds (run: new jobs; fork: a child,
 * which would inherit the expiry and be born expired).
 */
export function requireUnexpired(ctx: EngineContext, ws: WorkspaceRecord, refused = 'it takes no new jobs'): WorkspaceRecord {
  if (ws.state !== 'expired' && (ws.expiresAt === null || ws.expiresAt > ctx.clock.now())) return ws;
  const at = ws.expiresAt === null ? 'its TTL' : new Date(ws.expiresAt).toISOString();
  throw new EngineError('WORKSPACE_EXPIRED', `workspace ${ws.id} expired at ${at}; ${refused}`, {
    hint: 'export what you still need from it (gc destroys it), and run new work in a new workspace',
    action: nextAction('create'),
  });
}

/** A workspace that still exists (not destroyed): what every acting verb needs. */
export function requireLiveWorkspace(ctx: EngineContext, workspaceId: string): WorkspaceRecord {
  const ws = requireWorkspace(ctx, workspaceId);
  if (ws.state === 'destroyed') {
    throw new EngineError('WORKSPACE_DESTROYED', `workspace ${workspaceId} is a destroyed workspace`, {
      hint: 'create a new one',
      action: nextAction('create'),
    });
  }
  return ws;
}
