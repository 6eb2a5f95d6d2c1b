/**
 * The docker provider's container plan (plan-container.ts, the one place the
 * policy becomes an isolation boundary) → a Swarm service spec with one
 * replica. Pure, and tested on its output: every field of the container plan
 * is either carried into the service or named in `notCarried` with what
 * stands in for it, so a field the docker provider adds later cannot vanish
 * silently on swarm (the unit test fails on an unknown field).
 *
 * What Swarm's service API (Engine 20.10, API 1.41) cannot carry: a custom
 * seccomp profile and no-new-privileges (ContainerSpec.Privileges has them
 * only from API 1.44/1.46), masked paths, MemorySwap and KernelMemoryTCP.
 * What stands in: the engine's default seccomp profile and masked paths,
 * CapDrop ALL (an empty bounding set, so even a setuid binary gains no
 * capability) and a non-root init; the swap and socket gaps are named in the
 * provider's capabilities.
 */
import type { ContainerPlan } from '../docker/plan-container.js';

/** The task container's own processes (docker-init and `sleep infinity`): non-root, and never a job uid (600001+). */
export const SERVICE_USER = '65534:65534';

/** Restart condition none: a task that ends (its node lost, its init killed) is never replaced by an empty one elsewhere. */
export const RESTART_NONE = { Condition: 'none', MaxAttempts: 0 } as const;

export interface ServiceMount {
  Type: 'volume' | 'tmpfs';
  Target: string;
  Source?: string;
  ReadOnly: boolean;
  VolumeOptions?: { NoCopy: true; Labels: Record<string, string> };
  TmpfsOptions?: { SizeBytes: number; Mode: number };
}

export interface ServiceSpec {
  Name: string;
  Labels: Record<string, string>;
  TaskTemplate: {
    ContainerSpec: {
      Image: string;
      Command: string[];
      Args: string[];
      User: string;
      Dir: string;
      Env: string[];
      Labels: Record<string, string>;
      ReadOnly: true;
      Init: true;
      CapabilityDrop: string[];
      CapabilityAdd: string[];
      Mounts: ServiceMount[];
      Ulimits: ContainerPlan['HostConfig']['Ulimits'];
    };
    Resources: { Limits: { NanoCPUs: number; MemoryBytes: number; Pids: number } };
    RestartPolicy: typeof RESTART_NONE;
    Placement: { Constraints: string[] };
    /** None: a task with no network gets the engine's default bridge, which nodes run without (`--bridge none`): loopback only. */
    Networks: [];
  };
  Mode: { Replicated: { Replicas: 1 } };
}

export interface ServicePlan {
  spec: ServiceSpec;
  /** Container plan fields the service cannot carry, each with what stands in for it. */
  notCarried: Record<string, string>;
}

/** Fields of the container plan and where each goes; a field not listed here makes planService throw. */
const CARRIED = new Set([
  'name',
  'Image',
  'Cmd',
  'Entrypoint',
  'User',
  'WorkingDir',
  'Env',
  'Labels',
  'NetworkDisabled',
  'AttachStdin',
  'AttachStdout',
  'AttachStderr',
  'Tty',
  'OpenStdin',
]);
const HOST_CARRIED = new Set([
  'NetworkMode',
  'Memory',
  'NanoCpus',
  'PidsLimit',
  'Privileged',
  'CapDrop',
  'CapAdd',
  'ReadonlyRootfs',
  'Tmpfs',
  'Mounts',
  'Binds',
  'Devices',
  'VolumesFrom',
  'Init',
  'AutoRemove',
  'RestartPolicy',
  'IpcMode',
  'PidMode',
  'UsernsMode',
  'OomKillDisable',
  'Ulimits',
]);
const HOST_NOT_CARRIED: Record<string, string> = {
  SecurityOpt: "the engine's default seccomp profile, without no-new-privileges (API 1.41 services take neither); CapDrop ALL leaves the bounding set empty",
  MaskedPaths: "the engine's default masked paths",
  MemorySwap: "the engine's default: swap up to the memory limit again on a node that has swap",
  KernelMemoryTCP: 'none: on cgroup v1 socket buffers are not charged to the workspace',
};

/** `rw,nosuid,nodev,size=N,mode=1777` → a tmpfs mount; the engine mounts service tmpfs nosuid,nodev. */
function tmpfsMount(target: string, options: string): ServiceMount {
  const parts = options.split(',');
  const sizeText = parts.find((p) => p.startsWith('size='))?.slice(5) ?? '';
  const unit = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[sizeText.slice(-1).toLowerCase()];
  const size = unit === undefined ? Number(sizeText) : Number(sizeText.slice(0, -1)) * unit;
  const mode = parseInt(parts.find((p) => p.startsWith('mode='))?.slice(5) ?? '755', 8);
  if (!Number.isSafeInteger(size) || size <= 0) throw new RangeError(`tmpfs ${target} has no size`);
  return { Type: 'tmpfs', Target: target, ReadOnly: parts.includes('ro'), TmpfsOptions: { SizeBytes: size, Mode: mode } };
}

export function planService(plan: ContainerPlan, input: { serviceLabels: Record<string, string>; constraints: readonly string[] }): ServicePlan {
  for (const key of Object.keys(plan)) if (!CARRIED.has(key) && key !== 'HostConfig') throw new RangeError(`planService does not know container field ${key}`);
  const notCarried: Record<string, string> = {};
  for (const [key, value] of Object.entries(plan.HostConfig)) {
    if (HOST_CARRIED.has(key)) continue;
    const instead = HOST_NOT_CARRIED[key];
    if (instead === undefined) throw new RangeError(`planService does not know HostConfig field ${key}`);
    if (value !== undefined) notCarried[key] = instead;
  }
  const host = plan.HostConfig;
  if (host.Binds.length > 0 || host.Devices.length > 0 || host.CapAdd.length > 0)
    throw new RangeError('a workspace service takes no binds, devices or capabilities');
  const mounts: ServiceMount[] = host.Mounts.map((m) => ({
    Type: 'volume',
    Source: m.Source,
    Target: m.Target,
    ReadOnly: false,
    VolumeOptions: { NoCopy: true, Labels: { ...input.serviceLabels } },
  }));
  for (const [target, options] of Object.entries(host.Tmpfs)) mounts.push(tmpfsMount(target, options));
  return {
    spec: {
      Name: plan.name,
      Labels: { ...input.serviceLabels },
      TaskTemplate: {
        ContainerSpec: {
          Image: plan.Image,
          Command: plan.Entrypoint,
          Args: plan.Cmd,
          User: SERVICE_USER,
          Dir: plan.WorkingDir,
          Env: plan.Env,
          Labels: { ...plan.Labels },
          ReadOnly: true,
          Init: true,
          CapabilityDrop: [...host.CapDrop],
          CapabilityAdd: [],
          Mounts: mounts,
          Ulimits: host.Ulimits,
        },
        Resources: { Limits: { NanoCPUs: host.NanoCpus, MemoryBytes: host.Memory, Pids: host.PidsLimit } },
        RestartPolicy: RESTART_NONE,
        Placement: { Constraints: [...input.constraints] },
        Networks: [],
      },
      Mode: { Replicated: { Replicas: 1 } },
    },
    notCarried,
  };
}
