import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';

/**
 * The id is held by a workspace that is not destroyed: say in what state,
 * and how to free it — a failed or half-made one is not usable and only a
 * destroy gives its id back (#12 item 11).
 */
export function workspaceExists(workspaceId: string, state: string): EngineError {
  const unusable = state === 'failed' || state === 'requested' || state === 'provisioning';
  return new EngineError('WORKSPACE_EXISTS', `workspace ${workspaceId} already exists (${state})`, {
    hint: unusable
      ? `it is ${state === 'failed' ? 'a failed' : 'an unfinished'} workspace: create it again once a destroy frees the id (or choose another workspace id)`
      : 'choose another workspace id (or omit it for a fresh one), or destroy this one first',
    action: nextAction('destroy', { workspaceId }),
  });
}
