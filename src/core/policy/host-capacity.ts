/**
 * Budgets against the host's capacity (second red team, item 2): a budget
 * the host cannot honour is refused at create, before anything exists
 * (POLICY_DENIED, exit 3), naming the host fact and the largest value that
 * would be accepted. Pure: the provider measures (Provider.capacity, at
 * create only), this decides.
 *
 * Why each rule, and what it prevents:
 *  - storage ≤ free − promised − margin. Images are sparse and reserve
 *    nothing, so a 500 GiB budget on a host with 79 GB free was accepted and
 *    a job filled the host's disk through it. `promised` is what existing
 *    workspaces may still write (their budgets minus what they hold): the
 *    sum of all remaining budgets then stays within the free space, so
 *    workspaces filling their own budgets cannot fill the host together
 *    (overcommit). The margin (5% of the filesystem, at least 1 GiB) keeps
 *    room for the host itself and headspace's state, logs and metadata.
 *  - memory ≤ MemTotal − max(256 MiB, MemTotal / 8): a budget the host does
 *    not have is not a limit (64 TiB was accepted on a 24 GB host).
 *  - pids ≤ min(pid_max, threads-max) / 4: past the host's own task table
 *    the pids budget means nothing, and one workspace must leave the host
 *    most of it (65536 was accepted with pid_max 32768).
 *  - cpu ≤ CPUs online: a quota past every CPU throttles nothing.
 */
import { EngineError, inputRef } from '../errors.js';
import type { HostCapacity } from '../provider.js';
import { BUDGET_FIELDS } from './budget-fields.js';
import { formatBytes } from './effective-policy.js';
import type { Budget } from './policy.js';

const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;

export type CapacityKey = 'memoryBytes' | 'storageBytes' | 'pidsLimit' | 'cpuLimit';

export interface CapacityBound {
  /** The largest value create accepts on this host (in the field's unit). */
  largest: number;
  /** The host fact behind it, in words. */
  host: string;
}

/** Pure: the host's bound for each budget field it can tell about. */
export function capacityBounds(capacity: HostCapacity | undefined): Partial<Record<CapacityKey, CapacityBound>> {
  const bounds: Partial<Record<CapacityKey, CapacityBound>> = {};
  if (capacity === undefined) return bounds;
  const { memoryBytes, cpus, tasks, storage } = capacity;
  if (memoryBytes !== undefined && memoryBytes > 0) {
    const headroom = Math.max(256 * MiB, Math.floor(memoryBytes / 8));
    bounds.memoryBytes = {
      largest: floorTo(memoryBytes - headroom, MiB),
      host: `the host has ${formatSize(memoryBytes)} of memory in all, and keeps ${formatSize(headroom)} for itself`,
    };
  }
  if (cpus !== undefined && cpus > 0) bounds.cpuLimit = { largest: cpus, host: `the host has ${cpus} CPU${cpus === 1 ? '' : 's'} online` };
  if (tasks !== undefined && tasks > 0)
    bounds.pidsLimit = {
      largest: Math.floor(tasks / 4),
      host: `the host allows ${tasks} tasks at once (min of kernel.pid_max and kernel.threads-max), and one workspace may take a quarter`,
    };
  if (storage !== undefined) {
    const margin = Math.max(GiB, Math.floor(storage.totalBytes * 0.05));
    const promised = storage.committedBytes > 0 ? `, ${formatSize(storage.committedBytes)} of it already promised to existing workspaces,` : '';
    bounds.storageBytes = {
      largest: floorTo(storage.freeBytes - storage.committedBytes - margin, MiB),
      host: `the filesystem holding workspace storage (${storage.path}) has ${formatSize(storage.freeBytes)} free${promised} and keeps a ${formatSize(margin)} margin`,
    };
  }
  return bounds;
}

export interface CapacityRefusal {
  key: CapacityKey;
  flag: string;
  asked: number;
  bound: CapacityBound;
}

/** Pure: every budget field past the host's bound. */
export function capacityRefusals(budget: Budget, capacity: HostCapacity | undefined): CapacityRefusal[] {
  const bounds = capacityBounds(capacity);
  const refusals: CapacityRefusal[] = [];
  for (const key of ['memoryBytes', 'storageBytes', 'pidsLimit', 'cpuLimit'] as const) {
    const bound = bounds[key];
    if (bound !== undefined && budget[key] > bound.largest) refusals.push({ key, flag: flagOf(key), asked: budget[key], bound });
  }
  return refusals;
}

/**
 * Throws POLICY_DENIED naming each field past the host's capacity, the host fact, and the largest accepted value.
 * With `inputsOf` (the verb whose `budget` input was asked), the fields are input marks each face spells: the CLI
 * its flags, MCP and the library `budget.memoryBytes` (MCP's refusals told a model to pass --memory-bytes).
 */
export function assertWithinCapacity(budget: Budget, capacity: HostCapacity | undefined, provider: string, inputsOf?: string): void {
  const refusals = capacityRefusals(budget, capacity);
  if (refusals.length === 0) return;
  const field = (r: CapacityRefusal, value?: number) =>
    inputsOf === undefined ? (value === undefined ? r.flag : `${r.flag} ${largestArg(r)}`) : inputRef(`budget.${r.key}`, value);
  const text = refusals.map(
    (r) =>
      `${field(r)} ${show(r.key, r.asked)} is more than this host can give: ${r.bound.host}; the largest accepted is ${fits(r) ? show(r.key, r.bound.largest) : `nothing: no ${field(r)} fits now`}`,
  );
  const asks = refusals.filter(fits).map((r) => field(r, r.bound.largest));
  const storage = refusals.some((r) => r.key === 'storageBytes') ? 'free space on the storage filesystem (destroy unused workspaces)' : '';
  throw new EngineError('POLICY_DENIED', `the ${provider} provider refuses this budget: ${text.join('; ')}`, {
    hint: [asks.length > 0 ? `ask for ${asks.join(' ')} or less` : '', storage].filter((h) => h !== '').join(', or '),
    ...(inputsOf === undefined ? {} : { inputsOf }),
  });
}

function flagOf(key: CapacityKey): string {
  return BUDGET_FIELDS.find((f) => f.key === key)?.flag ?? key;
}

/** Does any value of the field fit (the largest accepted is at least the field's static minimum)? */
function fits(r: CapacityRefusal): boolean {
  return r.bound.largest >= (BUDGET_FIELDS.find((f) => f.key === r.key)?.min ?? 0);
}

/** The largest value as the flag takes it: whole MiB for bytes (`65945M`). */
function largestArg(r: CapacityRefusal): string {
  return r.key === 'memoryBytes' || r.key === 'storageBytes' ? `${Math.floor(r.bound.largest / MiB)}M` : String(r.bound.largest);
}

function show(key: CapacityKey, value: number): string {
  return key === 'memoryBytes' || key === 'storageBytes' ? formatSize(value) : String(value);
}

/** One decimal in the largest unit that fits (formatBytes prints exact multiples only). */
function formatSize(bytes: number): string {
  if (bytes % MiB === 0 && bytes < 1024 * MiB) return formatBytes(bytes);
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[unit]}`;
}

function floorTo(value: number, step: number): number {
  return Math.floor(value / step) * step;
}
