import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { validateId } from '../ids.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';

export function requireWorkspace(ctx: EngineContext, workspaceId: string): WorkspaceRecord {
  validateId('workspace', workspaceId);
  const ws = ctx.store().getWorkspace(workspaceId);
  if (!ws) throw new EngineError('WORKSPACE_NOT_FOUND', `no workspace ${workspaceId}`, { hint: 'list workspaces with: headspace ls' });
  return ws;
}

/** A workspace that still exists (not destroyed): what every acting verb needs. */
export function requireLiveWorkspace(ctx: EngineContext, workspaceId: string): WorkspaceRecord {
  const ws = requireWorkspace(ctx, workspaceId);
  if (ws.state === 'destroyed') {
    throw new EngineError('WORKSPACE_DESTROYED', `workspace ${workspaceId} is a destroyed workspace`, { hint: 'create a new one with: headspace create' });
  }
  return ws;
}
