/**
 * The workspace policy: closed by default. Network off, no host paths, and a
 * small explicit budget — never "unlimited".
 *
 * Semantics of `hostPaths`: `[]` (the default) means no host path is visible
 * inside the workspace; a non-empty list asks for those paths read-only, and a
 * provider that cannot bind host paths must refuse (exit 3), never ignore it.
 */
export type NetworkMode = 'disabled' | 'enabled' | 'allowlist';

export interface Budget {
  /** Memory ceiling in bytes; the kernel kills the job past it. */
  memoryBytes: number;
  /** CPU rate in cores (1.0 = one full core). */
  cpuLimit: number;
  /** Maximum number of processes and threads at once. */
  pidsLimit: number;
  /** Bytes the workspace's files may occupy. */
  storageBytes: number;
  /** Wall-clock seconds one job may run. */
  wallClockSeconds: number;
  /** Bytes of stdout+stderr kept per job; past it output is counted, not kept, and the job runs on (a capture cap). */
  outputBytes: number;
  /** Jobs that may run at once in one workspace. */
  concurrency: number;
}

export interface Policy {
  /**
   * `disabled` (the default): no network at all. `allowlist`: only the hosts
   * in `networkAllow`, through the engine's egress proxy (#18). `enabled`
   * (everything) is refused on every provider.
   */
  network: NetworkMode;
  /** With `allowlist`: the normalised patterns (core/network/allow-list.ts), possibly none. */
  networkAllow?: string[];
  hostPaths: string[];
  budget: Budget;
}

export const DEFAULT_BUDGET: Readonly<Budget> = Object.freeze({
  memoryBytes: 512 * 1024 * 1024,
  cpuLimit: 1,
  pidsLimit: 128,
  storageBytes: 1024 * 1024 * 1024,
  wallClockSeconds: 300,
  outputBytes: 10 * 1024 * 1024,
  concurrency: 1,
});

export function defaultPolicy(): Policy {
  return { network: 'disabled', hostPaths: [], budget: { ...DEFAULT_BUDGET } };
}

/** Every limit a result's policy summary labels enforced or measured. */
export type LimitName = 'network' | 'filesystem' | 'memory' | 'cpu' | 'pids' | 'storage' | 'wall_clock' | 'output_bytes' | 'concurrency';

export const LIMIT_NAMES: readonly LimitName[] = ['network', 'filesystem', 'memory', 'cpu', 'pids', 'storage', 'wall_clock', 'output_bytes', 'concurrency'];

/** Limits that guard the isolation boundary: unenforceable means `create` refuses (exit 3). */
export const BOUNDARY_LIMITS: readonly LimitName[] = ['network', 'filesystem', 'memory', 'cpu', 'pids'];

/** Limits the engine's own process always enforces, whatever the provider. */
export const ENGINE_ENFORCED_LIMITS: readonly LimitName[] = ['wall_clock', 'output_bytes', 'concurrency'];
