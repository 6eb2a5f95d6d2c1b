import type { ProviderCapabilities } from '../provider.js';
import { ENGINE_ENFORCED_LIMITS, defaultPolicy, type LimitName, type Policy } from './policy.js';

/**
 * `enforced`: the host really applies it; `measured`: only reported;
 * `simulated`: applied only inside a simulated provider (the fake).
 */
export type LimitLabel = 'enforced' | 'measured' | 'simulated';

export interface LimitLabelling {
  label: LimitLabel;
  /** Who applies it: the engine's own process, the provider, or no one (measured). */
  by: 'engine' | 'provider' | 'none';
  /** Why it is only measured (the provider's own words, or a default); only when measured. */
  reason?: string;
}

/**
 * The one rule for "is this limit enforced, measured or simulated" (#11 item
 * 4). Create's refusals, every result's policy summary, run's and inspect's
 * warnings, doctor's "not enforced" line and probe's skipped scenarios all
 * ask here; each used to carry its own copy of the rule (and of the list of
 * the engine's own limits), free to drift from the label a result shows.
 *
 * The engine enforces wall clock, output and concurrency itself, on every
 * provider. A limit the provider applies is `enforced`, or `simulated` on a
 * provider that simulates its workspaces (its limits hold only inside the
 * simulation, so they must never read enforced). What the policy asks
 * decides what the provider must be able to do: network `enabled` needs
 * network access, host paths need host-path support. Anything else is
 * `measured`, with the provider's reason.
 */
export function labelLimit(name: LimitName, policy: Pick<Policy, 'network' | 'hostPaths'>, caps: ProviderCapabilities): LimitLabelling {
  if (ENGINE_ENFORCED_LIMITS.includes(name)) return { label: 'enforced', by: 'engine' };
  if (providerApplies(name, policy, caps)) return { label: caps.simulated === true ? 'simulated' : 'enforced', by: 'provider' };
  if (name === 'network' && policy.network === 'allowlist' && !(caps.features ?? []).includes('network-allowlist'))
    return {
      label: 'measured',
      by: 'none',
      reason: `the ${caps.provider} provider does not offer network-allowlist (egress through the engine's proxy); remedy: create it on the native provider, or with network disabled`,
    };
  if (name === 'filesystem' && policy.hostPaths.length > 0 && caps.reasons[name] === undefined)
    return {
      label: 'measured',
      by: 'none',
      reason: `the ${caps.provider} provider cannot bind host paths into a workspace; remedy: create it on the native provider, or bring the files in with put or a run's inputs`,
    };
  return { label: 'measured', by: 'none', reason: caps.reasons[name] ?? `the ${caps.provider} provider cannot enforce ${name}` };
}

/** The limits a provider leaves measured under the closed default policy: what doctor names as its gaps. */
export function measuredByDefault(caps: ProviderCapabilities, names: readonly LimitName[]): LimitName[] {
  const policy = defaultPolicy();
  return names.filter((name) => labelLimit(name, policy, caps).label === 'measured');
}

/**
 * The warning a measured limit carries, in one wording wherever it is
 * given; a provider's reason that already opens with "measured, not
 * enforced" is not said twice.
 */
export function measuredLimitWarning(name: LimitName | string, value: string, reason?: string): string {
  const why = reason === undefined ? 'reported, not capped' : reason.replace(/^measured, not enforced:\s*/i, '');
  return `the ${name} limit (${value}) is measured, not enforced: ${why}`;
}

function providerApplies(name: LimitName, policy: Pick<Policy, 'network' | 'hostPaths'>, caps: ProviderCapabilities): boolean {
  if (name === 'network' && policy.network === 'enabled') return caps.networkAccess;
  // An allow-list needs the provider's egress path (#18); its isolation is the same closed namespace.
  if (name === 'network' && policy.network === 'allowlist') return (caps.features ?? []).includes('network-allowlist') && caps.enforces.network;
  if (name === 'filesystem' && policy.hostPaths.length > 0) return caps.hostPaths && caps.enforces.filesystem;
  return caps.enforces[name];
}
