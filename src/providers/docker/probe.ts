/**
 * What the engine can back, read from GET /version and GET /info: the
 * cgroup features (MemoryLimit, SwapLimit, PidsLimit, CpuCfsQuota) decide
 * whether memory, pids and cpu are enforced; a missing one makes create
 * refuse (exit 3), never a weaker box. Storage on a local volume has no size
 * cap in any driver the engine ships, so it is measured (advisory check).
 */
import { ANSWER_BOUND_MS, isEngineSilence } from './answer-bounds.js';
import type { ProbeCheck, ProbeResult } from '../../core/provider.js';
import { engineAddress, missingSocket, type Engine } from './engine-client.js';
import { imageOfProfile } from './profiles.js';

export const PROVIDER_NAME = 'docker';

export const REMEDIES = {
  engine:
    'start a Docker Engine and point DOCKER_HOST at it (on Linux, as root, in a clone of headspace: eval "$(bash scripts/setup-docker.sh)" installs docker.io and starts a private dockerd)',
  cgroups:
    'run the engine on a host whose cgroups have the memory (with swap accounting), pids and cpu controllers (swapaccount=1 on the kernel command line for cgroup v1, and a memory controller with kmem.tcp accounting), or on cgroup v2',
  image:
    'build the default images with scripts/setup-docker.sh (in a clone of headspace), or point the profile at your own image: HEADSPACE_DOCKER_IMAGE_HOST=<image> (docker pull it first)',
  storage: 'use the native provider (as root it gives each workspace a filesystem of its budget) where the storage budget must hold',
} as const;

export const ADVISORY_CHECKS: ReadonlySet<string> = new Set(['storage-quota']);

export interface EngineFacts {
  version?: string;
  apiVersion?: string;
  memory: boolean;
  swap: boolean;
  pids: boolean;
  cpu: boolean;
  cgroupVersion?: string;
  /** cgroup v1: the engine can set memory.kmem.tcp.limit_in_bytes (Info.KernelMemoryTCP), without which socket buffers escape the memory budget. */
  kernelMemoryTcp?: boolean;
  seccomp: boolean;
  memTotal?: number;
  cpus?: number;
  /** Where the engine keeps volumes (DockerRootDir); read on this host only when the engine is local. */
  rootDir?: string;
  /** The engine host's architecture (x86_64, aarch64): the seccomp profile's ABI. */
  arch?: string;
  hostImage?: { ref: string; id?: string };
  /** The engine took the connection and did not answer the probe: nothing can be said of what it enforces. */
  silent?: boolean;
}

export interface EngineProbe {
  result: ProbeResult;
  facts: EngineFacts;
}

/** The probe's own bound: one Engine API answer's (answer-bounds.ts), so a silent engine costs doctor one bound. */
export const PROBE_TIMEOUT_MS = ANSWER_BOUND_MS;

export function withinMs<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
    timer.unref();
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

export async function probeEngine(engine: Engine, dockerHost: string | undefined): Promise<EngineProbe> {
  const checks: ProbeCheck[] = [];
  const facts: EngineFacts = { memory: false, swap: false, pids: false, cpu: false, seccomp: false };
  try {
    // Nothing at a local socket's path: the answer a connection would give, without loading dockerode to hear it.
    const missing = missingSocket(dockerHost);
    if (missing !== undefined) throw Object.assign(new Error(`connect ENOENT ${missing}`), { code: 'ENOENT' });
    // Bounded: an address that accepts and never answers must not hang doctor or create.
    const [version, info] = await withinMs(PROBE_TIMEOUT_MS, Promise.all([engine.version(), engine.info() as Promise<Record<string, unknown>>]));
    facts.version = version.Version;
    facts.apiVersion = version.ApiVersion;
    facts.memory = info.MemoryLimit === true;
    facts.swap = info.SwapLimit === true;
    facts.pids = info.PidsLimit === true;
    facts.cpu = info.CpuCfsQuota === true;
    facts.cgroupVersion = typeof info.CgroupVersion === 'string' ? info.CgroupVersion : undefined;
    facts.kernelMemoryTcp = info.KernelMemoryTCP === true;
    facts.seccomp = Array.isArray(info.SecurityOptions) && (info.SecurityOptions as string[]).some((o) => o.includes('seccomp'));
    facts.memTotal = typeof info.MemTotal === 'number' ? info.MemTotal : undefined;
    facts.cpus = typeof info.NCPU === 'number' ? info.NCPU : undefined;
    facts.arch = typeof info.Architecture === 'string' ? info.Architecture : undefined;
    facts.rootDir = typeof info.DockerRootDir === 'string' ? info.DockerRootDir : undefined;
    checks.push({ name: 'engine', ok: true, detail: `Docker Engine ${version.Version} (API ${version.ApiVersion}) at ${engineAddress(dockerHost)}` });
  } catch (error) {
    checks.push({
      name: 'engine',
      ok: false,
      detail: `no Docker Engine answers at ${engineAddress(dockerHost)}: ${messageOf(error)}`,
      remedy: REMEDIES.engine,
    });
    if (isEngineSilence(error) || messageOf(error).startsWith('no answer within')) facts.silent = true;
    // No address given and no socket at the default place: docker is not set up here, which is no fault.
    const unconfigured = dockerHost === undefined && process.env.DOCKER_HOST === undefined && (error as { code?: unknown }).code === 'ENOENT';
    return { result: { provider: PROVIDER_NAME, ready: false, checks, ...(unconfigured ? { unconfigured: true as const } : {}) }, facts };
  }
  const cgroupDetail = (ok: boolean, what: string) => `${what} ${ok ? 'available' : 'not available'} to the engine (cgroup v${facts.cgroupVersion ?? '?'})`;
  // On v1, socket buffers are charged to a container only once its memory.kmem.tcp.limit_in_bytes is set, which the
  // provider writes itself on this host (socket-cgroup.ts): a v1 engine elsewhere leaves them outside the budget.
  const local = engineAddress(dockerHost).startsWith('unix://');
  const sockets = facts.cgroupVersion === '2' || (facts.kernelMemoryTcp === true && local);
  const memoryOk = facts.memory && facts.swap && sockets;
  checks.push({
    name: 'cgroup-memory',
    ok: memoryOk,
    detail: `${cgroupDetail(facts.memory, 'memory limits')}; ${facts.swap ? 'swap limited with it' : 'swap cannot be limited (Memory = MemorySwap would not hold)'}; ${
      facts.cgroupVersion === '2'
        ? 'socket buffers charged under memory.max'
        : sockets
          ? 'socket buffers bounded (memory.kmem.tcp.limit_in_bytes)'
          : `socket buffers cannot be bounded (${local ? 'the kernel has no kmem.tcp accounting' : 'cgroup v1 on an engine not on this host'})`
    }`,
    limits: ['memory'],
    ...(memoryOk ? {} : { remedy: REMEDIES.cgroups }),
  });
  checks.push({
    name: 'cgroup-pids',
    ok: facts.pids,
    detail: cgroupDetail(facts.pids, 'pids limits'),
    limits: ['pids'],
    ...(facts.pids ? {} : { remedy: REMEDIES.cgroups }),
  });
  checks.push({
    name: 'cgroup-cpu',
    ok: facts.cpu,
    detail: cgroupDetail(facts.cpu, 'cpu quotas'),
    limits: ['cpu'],
    ...(facts.cpu ? {} : { remedy: REMEDIES.cgroups }),
  });
  const ref = imageOfProfile('host');
  if (ref !== undefined) {
    try {
      const image = await engine.getImage(ref).inspect();
      facts.hostImage = { ref, id: image.Id };
      checks.push({ name: 'image-host', ok: true, detail: `profile host → ${ref} (${image.Id})` });
    } catch (error) {
      facts.hostImage = { ref };
      checks.push({
        name: 'image-host',
        ok: false,
        detail: `profile host → ${ref}, which the engine does not have: ${messageOf(error)}`,
        remedy: REMEDIES.image,
      });
    }
  }
  checks.push({
    name: 'storage-quota',
    ok: false,
    advisory: true,
    detail: 'workspace files are a local volume with no size cap: storage is measured, not enforced',
    remedy: REMEDIES.storage,
  });
  const ready = checks.every((c) => c.ok || c.advisory === true);
  return { result: { provider: PROVIDER_NAME, ready, checks }, facts };
}
