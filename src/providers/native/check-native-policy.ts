/**
 * What the native provider refuses in a policy before anything is made or
 * run: a profile it does not have, network access (sharing the host network
 * would expose host loopback services), and host paths that overlap
 * headspace's own state or changed since create (host-paths.ts).
 */
import { EngineError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { validateId } from '../../core/ids.js';
import type { Policy } from '../../core/policy/policy.js';
import type { WorkspacePlan } from '../../core/provider.js';
import { resolveHostPaths, verifyHostPaths } from './host-paths.js';
import { HOST_PROFILE } from './host-profile.js';
import type { WorkspaceMeta } from './workspace-meta.js';

/** What create() refuses for the plan itself, before anything is made (and before the engine records it). */
export function checkNativePlan(plan: WorkspacePlan, protectedDirs: readonly string[]): void {
  validateId('workspace', plan.workspaceId);
  if (plan.profile !== HOST_PROFILE)
    throw new EngineError('BAD_ARGUMENT', `the native provider has no profile '${plan.profile.slice(0, 40)}'`, {
      hint: `create it with profile ${HOST_PROFILE}`,
      action: nextAction('create', { provider: 'native', profile: HOST_PROFILE }),
    });
  validateNativePolicy(plan.policy, 'create', protectedDirs);
}

/**
 * Refuses what the provider cannot do safely; returns each host path's
 * checked real path: resolved at create, verified against the recorded ones
 * before a job.
 */
export function validateNativePolicy(
  policy: Policy,
  recorded: WorkspaceMeta['resolvedHostPaths'] | 'create',
  protectedDirs: readonly string[],
): Record<string, string> {
  // An allow-list keeps the job's own empty namespace; only the egress socket leads out (#18).
  if (policy.network === 'enabled') {
    throw new EngineError(
      'POLICY_DENIED',
      'the native provider does not give workspaces network access: sharing the host network would expose host loopback services',
      {
        hint: 'create it with network disabled',
        action: nextAction('create', { provider: 'native', network: 'disabled' }),
      },
    );
  }
  return recorded === 'create' ? resolveHostPaths(policy.hostPaths, protectedDirs) : verifyHostPaths(policy.hostPaths, recorded, protectedDirs);
}
