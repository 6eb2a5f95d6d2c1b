/**
 * Pure: what the native provider declares it can enforce on this host, from
 * the host probe's facts. Core's one labelling rule (core/policy/label-limit.ts)
 * turns these declarations into enforced or measured labels; nothing here
 * labels a limit itself.
 */
import { MAX_JOBS_AT_ONCE } from '../../core/policy/budget-fields.js';
import { LIMIT_NAMES, type LimitName } from '../../core/policy/policy.js';
import type { ProviderCapabilities, ProviderFeature } from '../../core/provider.js';
import { ADVISORY_CHECKS, PROVIDER_NAME, REMEDIES, type HostProbe } from './probe.js';

/**
 * How a native workspace runs several jobs at once (#12 item 8): each job
 * slot has its own marker (job-marker.ts) and its own child cgroup under the
 * workspace's (layout.ts jobCgroupName), so a stop, a wall clock or the sweep
 * after a job ends that job's processes alone, and its cpu, memory peak and
 * OOM kills are read from its own counters (a v1 OOM kill, even one caused by
 * the shared limit, counts in the cgroup of the process killed — measured).
 */
const NATIVE_JOBS_AT_ONCE =
  "jobs at once share the workspace's memory, pids and cpu budgets (its cgroup); each job runs in a child cgroup of its own, so it is stopped, timed out and measured alone";

export function nativeCapabilities(probe: Pick<HostProbe, 'result' | 'cgroups' | 'storage' | 'landlock'>): ProviderCapabilities {
  const ready = probe.result.ready;
  const notReady = probe.result.checks
    .filter((c) => !c.ok && !ADVISORY_CHECKS.has(c.name))
    .map((c) => `${c.name}: ${c.detail} — ${c.remedy ?? ''}`)
    .join('; ');
  const enforces = Object.fromEntries(LIMIT_NAMES.map((n) => [n, false])) as Record<LimitName, boolean>;
  const reasons: Partial<Record<LimitName, string>> = {};
  enforces.network = ready; // 'disabled' = a private network namespace with loopback only
  enforces.filesystem = ready;
  enforces.memory = ready && probe.cgroups.enforces.memory;
  enforces.pids = ready && probe.cgroups.enforces.pids;
  enforces.cpu = ready && probe.cgroups.enforces.cpu;
  enforces.storage = ready && probe.storage.available;
  for (const name of ['network', 'filesystem', 'memory', 'pids', 'cpu'] as const) if (!enforces[name]) reasons[name] = notReady || 'not ready';
  if (!enforces.storage) {
    reasons.storage = ready
      ? `measured, not enforced: ${probe.storage.detail}; workspace files are a host directory with no per-workspace quota (report: inspect storageBytes), and its host path shows in /proc/self/mountinfo inside jobs; /tmp inside is capped by its tmpfs size — ${REMEDIES.storage}`
      : notReady || 'not ready';
  }
  reasons.wall_clock = "enforced by the engine, which aborts the job; the provider kills the job's cgroup (its own child cgroup when jobs run at once)";
  reasons.output_bytes = 'enforced by the engine as a capture cap: past it output is counted, not kept, and the job runs on';
  reasons.concurrency = NATIVE_JOBS_AT_ONCE;
  // 'fd-closing': the exec shim closes inherited descriptors before bwrap and again inside (#10 item 1);
  // 'landlock' only when the kernel has it: defence in depth, not a gate (the probe's landlock check says why not).
  const layers = ready
    ? [
        'namespaces',
        'seccomp',
        'cap-drop',
        'non-root-uid',
        'fd-closing',
        ...(probe.landlock.abi > 0 ? ['landlock'] : []),
        probe.cgroups.driver?.kind ?? 'no-cgroups',
        ...(probe.storage.available ? ['loop-ext4'] : []),
      ]
    : [];
  // Snapshots (#14) live on the layered filesystem of the per-workspace image: without images (not root, no loop devices), none.
  // An allow-list runs in the same empty namespace, through the engine's egress proxy (#18).
  const features: ProviderFeature[] = ready && probe.storage.available ? ['snapshots', 'network-allowlist'] : ['network-allowlist'];
  return { provider: PROVIDER_NAME, enforces, reasons, networkAccess: false, hostPaths: true, layers, durable: true, jobsAtOnce: MAX_JOBS_AT_ONCE, features };
}
