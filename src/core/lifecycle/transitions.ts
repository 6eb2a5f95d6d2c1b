import { EngineError } from '../errors.js';

/**
 * The workspace lifecycle as an explicit table. ready ⇄ running is the only
 * cycle (one workspace hosts many jobs); there is deliberately no
 * running → destroyed edge: a running job must end (or be stopped) first.
 */
export type WorkspaceState = 'requested' | 'provisioning' | 'ready' | 'running' | 'completed' | 'failed' | 'cancelled' | 'expired' | 'destroyed';

export const WORKSPACE_STATES: readonly WorkspaceState[] = [
  'requested',
  'provisioning',
  'ready',
  'running',
  'completed',
  'failed',
  'cancelled',
  'expired',
  'destroyed',
];

export const TRANSITIONS: Readonly<Record<WorkspaceState, readonly WorkspaceState[]>> = Object.freeze({
  requested: ['provisioning', 'failed', 'cancelled'],
  provisioning: ['ready', 'failed', 'cancelled'],
  // ready → failed: the provider lost what held the workspace (a swarm node went down, #22).
  ready: ['running', 'completed', 'cancelled', 'expired', 'failed'],
  running: ['ready', 'failed', 'cancelled'],
  completed: ['destroyed'],
  failed: ['destroyed'],
  cancelled: ['destroyed'],
  expired: ['destroyed'],
  destroyed: [],
});

export function legalNextStates(from: WorkspaceState): readonly WorkspaceState[] {
  return TRANSITIONS[from];
}

export function canTransition(from: WorkspaceState, to: WorkspaceState): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Pure: the next state, or an ILLEGAL_TRANSITION error naming the legal ones. */
export function transition(from: WorkspaceState, to: WorkspaceState): WorkspaceState {
  if (canTransition(from, to)) return to;
  const legal = TRANSITIONS[from];
  throw new EngineError(
    'ILLEGAL_TRANSITION',
    `a workspace cannot go from ${from} to ${to}; legal next states: ${legal.length ? legal.join(', ') : '(none: it is final)'}`,
    {
      hint: from === 'running' ? 'stop the running job first (stop with apply)' : 'check the workspace state with inspect',
    },
  );
}

/**
 * The removal path from a state to destroyed, taken from a fixed table (never a
 * search): e.g. ready → cancelled → destroyed. Running has no path.
 */
export function removalPath(from: WorkspaceState): WorkspaceState[] {
  switch (from) {
    case 'requested':
    case 'provisioning':
    case 'ready':
      return [from, 'cancelled', 'destroyed'];
    case 'completed':
    case 'failed':
    case 'cancelled':
    case 'expired':
      return [from, 'destroyed'];
    case 'destroyed':
      return [from];
    case 'running':
      transition(from, 'destroyed'); // always throws: there is no running → destroyed edge
      return [];
  }
}
