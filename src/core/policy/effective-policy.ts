import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import type { ProviderCapabilities } from '../provider.js';
import type { LimitSummary } from '../result/result-package.js';
import { allowListDigest } from '../network/allow-list.js';
import { labelLimit, measuredLimitWarning } from './label-limit.js';
import { BOUNDARY_LIMITS, LIMIT_NAMES, type LimitName, type Policy } from './policy.js';

export interface EffectiveLimit extends LimitSummary {
  name: LimitName;
  /** Why a limit is only measured, when it is. */
  reason?: string;
}

export interface EffectivePolicy {
  limits: EffectiveLimit[];
  /** Boundary limits the provider cannot enforce: non-empty means create must refuse. */
  refusals: Array<{ limit: LimitName; reason: string }>;
  /** One warning per limit that is only measured. */
  warnings: string[];
}

/**
 * Pure: every limit with its label (label-limit.ts decides it), the boundary
 * limits create must refuse, and one warning per other measured limit.
 */
export function effectivePolicy(policy: Policy, caps: ProviderCapabilities): EffectivePolicy {
  const limits: EffectiveLimit[] = [];
  const refusals: EffectivePolicy['refusals'] = [];
  const warnings: string[] = [];
  for (const name of LIMIT_NAMES) {
    const value = describeLimit(name, policy);
    const { label, by, reason } = labelLimit(name, policy, caps);
    limits.push({ name, value, label, by, ...(reason === undefined ? {} : { reason }) });
    // Only a measured limit has a reason. A simulation's limits are never refused: the
    // provider is a deliberate simulation, and create says so in its warnings.
    if (reason === undefined) continue;
    if (BOUNDARY_LIMITS.includes(name)) refusals.push({ limit: name, reason });
    else warnings.push(measuredLimitWarning(name, value, reason));
  }
  return { limits, refusals, warnings };
}

/** Throws POLICY_DENIED (exit 3) naming every boundary limit that cannot be enforced. */
export function assertEnforceable(effective: EffectivePolicy, provider: string): void {
  if (effective.refusals.length === 0) return;
  const names = effective.refusals.map((r) => r.limit).join(', ');
  const first = effective.refusals[0]!;
  // Each reason once, its remedy moved to the hint: a reason that is itself "the P provider cannot enforce X" read
  // "cannot enforce filesystem: filesystem: … cannot enforce filesystem" to a new user.
  const said = effective.refusals.map((r) => {
    const reason = r.reason.replace(/;?\s*remedy:.*$/s, '');
    return reason.startsWith(`the ${provider} provider`) ? reason : `${r.limit}: ${reason}`;
  });
  throw new EngineError(
    'POLICY_DENIED',
    said.length === 1 && said[0]!.startsWith(`the ${provider} provider`) ? said[0]! : `the ${provider} provider cannot enforce ${names}: ${said.join('; ')}`,
    {
      hint: first.reason.includes('remedy:')
        ? first.reason.slice(first.reason.indexOf('remedy:') + 7).trim()
        : 'choose another provider, or ask doctor what is missing',
      ...(first.reason.includes('remedy:') ? {} : { action: nextAction('doctor', { provider }) }),
    },
  );
}

export function describeLimit(name: LimitName, policy: Policy): string {
  const b = policy.budget;
  switch (name) {
    case 'network':
      return policy.network === 'allowlist' ? describeAllowList(policy.networkAllow ?? []) : policy.network;
    case 'filesystem':
      return policy.hostPaths.length === 0 ? 'workspace only, no host paths' : `workspace + read-only ${policy.hostPaths.join(', ')}`;
    case 'memory':
      return formatBytes(b.memoryBytes);
    case 'cpu':
      return `${b.cpuLimit} cpu`;
    case 'pids':
      return `${b.pidsLimit} pids`;
    case 'storage':
      return formatBytes(b.storageBytes);
    case 'wall_clock':
      return `${b.wallClockSeconds} s per job`;
    case 'output_bytes':
      return `${formatBytes(b.outputBytes)} captured per job`;
    case 'concurrency':
      // Several jobs share the workspace's budgets (one cgroup): the label says so, as a reader would assume per-job ones.
      return b.concurrency > 1 ? `${b.concurrency} jobs at once, sharing the workspace's memory, cpu and pids budgets` : '1 job at once';
  }
}

export function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1 && value % 1024 === 0) {
    value /= 1024;
    unit += 1;
  }
  if (unit === 0 && n >= 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${value} ${units[unit]}`;
}

/** The network limit's value under an allow-list: its patterns and the digest that pins them. */
export function describeAllowList(patterns: readonly string[]): string {
  const shown =
    patterns.length === 0
      ? 'nothing (every connection denied)'
      : patterns.length > 8
        ? `${patterns.slice(0, 8).join(', ')}, … (${patterns.length})`
        : patterns.join(', ');
  return `allow-list ${allowListDigest(patterns).slice(0, 19)}: ${shown}`;
}
