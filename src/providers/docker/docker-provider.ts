/**
 * The docker provider: a workspace is one long-lived container (policy →
 * HostConfig, plan-container.ts) plus one volume holding /workspace; each
 * job is an exec in that container (plan-job.ts).
 *
 * Why exec per job, not a container per job on the shared volume (measured
 * here with bench/docker-modes.mjs, Docker 20.10, `/bin/true`, 20 interleaved
 * rounds, load average ~13 on 2 cores): exec per job through this provider
 * 101 ms median (p90 190), a container per job (create + start + wait +
 * remove, same HostConfig and volume) 272 ms (p90 432), `docker run --rm`
 * 599 ms (p90 781). The container's namespaces, cgroups and mounts are set
 * up once per workspace instead of once per job.
 * What it costs us: jobs share the container's cgroup, so a job's OOM kill
 * is read from the engine's `oom` event for the container during the job
 * (State.OOMKilled is only set when the container itself dies), and the
 * processes of a job are found by their uid instead of by a cgroup of their
 * own: one job at a time per workspace, as the workspace's own uid, while the
 * container's init runs as another (plan-container.ts, plan-job.ts).
 *
 * All state that must be shared between processes lives either in the engine
 * (containers and volumes labelled with the workspace id and this root's
 * tag) or in small files under `root` (job-markers.ts), so a stop from
 * another process finds a run's job and the run reports it stopped.
 */
import { createHash } from 'node:crypto';
import type { ContainerCreateOptions } from 'dockerode';
import { existsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { constants } from 'node:os';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EngineError, ProviderError, WorkspaceLostError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { notReadyError } from '../../core/infrastructure-errors.js';
import { validateId } from '../../core/ids.js';
import { LIMIT_NAMES, type LimitName, type Policy } from '../../core/policy/policy.js';
import { normalizeWorkspacePath, pathComponents } from '../../core/paths.js';
import type { JobUser } from '../../core/job-identity.js';
import type {
  HostCapacity,
  JobOutcome,
  Leftover,
  LiveUsage,
  Provider,
  ProviderCapabilities,
  RemovableResource,
  RemovalDisposition,
  RunRequest,
  StopOptions,
  StopReport,
  WorkspaceDescriptor,
  WorkspacePlan,
  WorkspaceSpec,
} from '../../core/provider.js';
import { connectEngine, controlExec, engineAddress, runExec, statusOf, type Engine } from './engine-client.js';
import { jobMarkers } from './job-markers.js';
import { dockerLeftovers } from './leftovers.js';
import {
  labelsOf,
  LABEL_HELPER,
  LABEL_JOB_USER,
  LABEL_POLICY,
  LABEL_PROFILE,
  LABEL_ROOT,
  LABEL_WORKSPACE,
  planContainer,
  planVolumeOwner,
} from './plan-container.js';
import { planJobExec, planStopExec } from './plan-job.js';
import { hostNoPressurePages } from '../native/socket-memory.js';
import { containerCgroupUsage } from './container-usage.js';
import { findImageTools } from './find-tools.js';
import { boundContainerSockets } from './socket-cgroup.js';
import { ADVISORY_CHECKS, probeEngine, PROBE_TIMEOUT_MS, PROVIDER_NAME, REMEDIES, withinMs, type EngineProbe } from './probe.js';
import { imageOfProfile } from './profiles.js';
import { oomDuring } from './oom-events.js';
import { workspaceFiles } from './workspace-files.js';
import { ANSWER_BOUND_MS, EngineSilentError, SILENT_ENGINE_HINT } from './answer-bounds.js';
import { openSafeFs } from '../native/safe-fs.js';
import { dockerSeccompProfile } from './seccomp-profile.js';

export interface DockerProviderOptions {
  /** State directory for job markers; the engine passes `$HEADSPACE_HOME/docker`. Its path also tags our engine objects. */
  root: string;
  /** Engine address (`unix:///path`); default DOCKER_HOST, else the default socket. */
  dockerHost?: string;
  /**
   * The workspace volume is made before the workspace, by the swarm's anchor task on its node (swarm-provider.ts):
   * create then expects it to exist, and does not refuse it as an earlier workspace's.
   */
  volumeMadeByAnchor?: boolean;
}

/** stop's grace between SIGTERM and the kill when the caller names none. */
const DEFAULT_STOP_GRACE_MS = 5000;
/**
 * How long past its grace a stop may take (its scans of /proc and its KILL rounds, slow with many processes or under
 * load) before the job counts as resisting it and its container is restarted: 30 s, or
 * HEADSPACE_DOCKER_STOP_SLACK_SECONDS (1 to 600).
 */
function stopSlackMs(): number {
  const given = Number(process.env.HEADSPACE_DOCKER_STOP_SLACK_SECONDS);
  return Number.isInteger(given) && given >= 1 && given <= 600 ? given * 1000 : 30_000;
}

/**
 * The slack of the kill that ends an aborted job (its wall clock, a cancel): short, so that a job resisting it has its
 * container restarted well within GIVE_UP_AFTER_ABORT_MS, which is for an engine that went quiet (red team, session 19).
 */
const ABORT_STOP_SLACK_MS = 5_000;

/** A stop exec that ran past its grace and slack: the job resisted it. */
class StopOverranError extends Error {
  constructor() {
    super('the stop ran past its grace');
    this.name = 'StopOverranError';
  }
}
/**
 * How long after a job is aborted its run waits for the engine to confirm the job's end (its kill answered, its
 * stream closed) before giving up on a silent engine: two answer bounds, as the kill is one call and the exec's
 * end another.
 */
const GIVE_UP_AFTER_ABORT_MS = 2 * ANSWER_BOUND_MS;

/** One job at a time per workspace on docker, and why (#19). */
const JOBS_AT_ONCE_DOCKER = 1;
const JOBS_AT_ONCE =
  "one job at a time per workspace: a job's processes are every process of the workspace's uid in its container, ended at the job's end and by stop with one kill as that uid; jobs at once would share that uid and the container's cgroup, and nothing inside the container a job cannot write (a session id, a pid file) can tell one job's processes from another's";

function signalName(number: number): string | null {
  for (const [name, value] of Object.entries(constants.signals)) if (value === number) return name;
  return null;
}

/** Tags every engine object a provider root makes (labels, names): two homes on one engine never see each other's. The swarm provider names its services by it too. */
export function rootTagOf(root: string): string {
  return createHash('sha256').update(resolve(root)).digest('hex').slice(0, 12);
}

export function createDockerProvider(options: DockerProviderOptions): Provider {
  const engine: Engine = connectEngine(options.dockerHost);
  const rootTag = rootTagOf(options.root);
  const markers = jobMarkers(options.root);
  const nameOf = (id: string) => `hs-${rootTag}-${id}`;
  let probing: Promise<EngineProbe> | undefined;
  const probe = () => (probing ??= probeEngine(engine, options.dockerHost));

  interface Known {
    containerId: string;
    user: JobUser;
    policy: Policy;
    imageId: string;
    profile: string;
    running: boolean;
    /** Made before jobs and the container's init ran as different uids (no job-user label): it runs no more jobs. */
    legacy: boolean;
    /** Its socket-memory limit checked in this process (boundSockets): once, before the first job. */
    socketsBound?: boolean;
  }
  /** Per instance: what a workspace's container is, once read (its config never changes after create). */
  const known = new Map<string, Known>();

  async function lookup(id: string): Promise<Known | undefined> {
    validateId('workspace', id);
    const cached = known.get(id);
    if (cached !== undefined) return cached;
    let info;
    try {
      // Bounded: every verb's reconcile and doctor ask this, and an engine that accepts and never answers held them forever.
      info = await withinMs(PROBE_TIMEOUT_MS, engine.getContainer(nameOf(id)).inspect());
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw engineFailure('inspecting the workspace container', error);
    }
    const labels = info.Config.Labels ?? {};
    if (labels[LABEL_ROOT] !== rootTag || labels[LABEL_WORKSPACE] !== id) return undefined;
    const jobUserLabel = labels[LABEL_JOB_USER];
    const [uid, gid] = (jobUserLabel ?? info.Config.User ?? '').split(':').map(Number);
    const policy = JSON.parse(labels[LABEL_POLICY] ?? 'null') as Policy | null;
    if (uid === undefined || gid === undefined || policy === null)
      throw new ProviderError(`the container of docker workspace ${id} lacks its user or policy label`, { hint: 'destroy the workspace and create it again' });
    const entry: Known = {
      containerId: info.Id,
      user: { uid, gid },
      policy,
      imageId: info.Image,
      profile: labels[LABEL_PROFILE] ?? 'host',
      running: info.State.Running === true,
      legacy: jobUserLabel === undefined,
    };
    known.set(id, entry);
    return entry;
  }

  async function requireWorkspace(id: string): Promise<Known> {
    const found = await lookup(id);
    if (found === undefined)
      throw new EngineError('WORKSPACE_NOT_FOUND', `no docker workspace ${id}`, {
        hint: 'list the workspaces',
        action: nextAction('ls'),
      });
    return found;
  }

  /** A container stopped by an engine restart is started again before a job (its files are in the volume). */
  async function ensureRunning(ws: Known): Promise<void> {
    if (!ws.running) {
      try {
        await engine.getContainer(ws.containerId).start();
      } catch (error) {
        if (statusOf(error) !== 304) throw engineFailure('starting the workspace container', error);
      }
      ws.running = true;
      ws.socketsBound = false;
    }
    // A container started elsewhere (docker start, another headspace process) still gets its sockets bound before a job.
    if (ws.socketsBound !== true) {
      await boundSockets(ws.containerId);
      ws.socketsBound = true;
    }
  }

  /**
   * cgroup v1: the socket-memory limit the plan asked for (KernelMemoryTCP),
   * written to the running container's cgroup, since the runtime ignores it
   * (socket-cgroup.ts). A container planned without it (v2) is left alone.
   */
  async function boundSockets(containerId: string, known?: { pid: number; bytes: number }): Promise<void> {
    let facts = known;
    if (facts === undefined) {
      const info = await engine
        .getContainer(containerId)
        .inspect()
        .catch((error: unknown) => {
          throw engineFailure('inspecting the workspace container', error);
        });
      facts = { pid: info.State.Pid ?? 0, bytes: (info.HostConfig as { KernelMemoryTCP?: number }).KernelMemoryTCP ?? 0 };
    }
    if (!(facts.bytes > 0)) return;
    if (!engineAddress(options.dockerHost).startsWith('unix://'))
      throw new ProviderError('socket buffers of the workspace container cannot be bounded: the engine is not on this host and its cgroups are v1', {
        hint: 'run the engine on this host, or on cgroup v2',
      });
    await boundContainerSockets({ id: containerId, ...facts });
  }

  function engineFailure(what: string, error: unknown): ProviderError {
    return new ProviderError(`the Docker Engine failed ${what}: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 240)}`, {
      // An engine that is up but silent needs another remedy than one that is not there (red team, session 18).
      hint: error instanceof EngineSilentError ? SILENT_ENGINE_HINT : `${REMEDIES.engine}; doctor checks the docker provider`,
      action: nextAction('doctor', { provider: 'docker' }),
      cause: error,
    });
  }

  /** Whether a job's processes ended is unknown: the workspace runs no more jobs (fail closed). */
  function lostToQuietEngine(id: string, jobId: string, afterAbort: boolean, cause: unknown): WorkspaceLostError {
    const reason = afterAbort
      ? `the Docker Engine stopped answering after job ${jobId} was aborted, so its end could not be confirmed`
      : `the Docker Engine stopped answering as job ${jobId} started, and whether it runs could not be learnt`;
    return new WorkspaceLostError(`docker workspace ${id} is lost: ${reason}`, reason, {
      hint: 'see whether the engine is alive (docker info) and restart it if it hangs; then export what you need, destroy the workspace and create it again',
      action: nextAction('doctor', { provider: 'docker' }),
      cause,
    });
  }

  async function readyProbe(): Promise<EngineProbe> {
    const p = await probe();
    if (!p.result.ready) throw notReadyError(PROVIDER_NAME, p.result.checks);
    return p;
  }

  async function checkPlan(plan: WorkspacePlan): Promise<void> {
    validateId('workspace', plan.workspaceId);
    if (imageOfProfile(plan.profile) === undefined)
      throw new EngineError('BAD_ARGUMENT', `the docker provider has no profile '${plan.profile.slice(0, 40)}'`, {
        hint: 'map the profile to an image with the environment variable HEADSPACE_DOCKER_IMAGE_<PROFILE>=<image>, or create the workspace with profile host',
        action: nextAction('create', { provider: 'docker', profile: 'host' }),
      });
    if (plan.policy.network !== 'disabled')
      throw new EngineError('POLICY_DENIED', 'the docker provider does not give workspaces network access (NetworkMode none)', {
        hint: 'create it with network disabled',
        action: nextAction('create', { provider: 'docker', network: 'disabled' }),
      });
    if (plan.policy.hostPaths.length > 0)
      throw new EngineError('POLICY_DENIED', 'the docker provider mounts no host paths: the workspace volume is its only mount', {
        hint: "copy the files in with put (or run's inputs) once the workspace exists, or use the native provider",
      });
    if (plan.policy.budget.concurrency > JOBS_AT_ONCE_DOCKER)
      throw new EngineError(
        'POLICY_DENIED',
        `the docker provider runs one job at a time per workspace, not ${plan.policy.budget.concurrency}: ${JOBS_AT_ONCE}`,
        {
          hint: 'ask for a concurrency of 1',
        },
      );
    await refuseEarlierVolume(plan.workspaceId);
  }

  /**
   * The engine answers a create of a volume whose name exists with that volume: a workspace made again under the id
   * of one whose volume a destroy retained (in use) or could not remove got the earlier workspace's files (red team,
   * session 20), and an undo of a failed create removed them. Such a volume is a doctor leftover once nothing uses it.
   */
  async function refuseEarlierVolume(id: string): Promise<void> {
    if (options.volumeMadeByAnchor === true) return;
    // With its container, the volume is a workspace's own: create refuses that one as existing.
    if ((await lookup(id)) !== undefined) return;
    try {
      await withinMs(PROBE_TIMEOUT_MS, engine.getVolume(nameOf(id)).inspect());
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw engineFailure('inspecting the workspace volume', error);
    }
    throw new EngineError('WORKSPACE_EXISTS', `the volume of an earlier docker workspace ${id} is still there, with its files; nothing was created`, {
      hint: "doctor's repair with apply removes it once nothing uses it; then create it again, or choose another id",
      action: nextAction('doctor', { repair: true, apply: true }),
    });
  }

  /**
   * Ends the workspace's job inside the container: every process of its uid
   * (plan-job.ts), TERM, the grace, then KILL. `found` is false when nothing
   * of the uid ran; `empty` when nothing of it is left.
   *
   * The stop script runs as the job's uid (that is what lets its `kill -1`
   * reach every process of the job and nothing else), so the job can signal
   * it: a job that stopped it (SIGSTOP) held `stop` forever, one that killed
   * it survived its stop, and either outlived its wall clock (red team,
   * session 19). A stop that has not ended within its grace and
   * stopSlackMs(), that was ended before it could answer three times, or
   * that left processes, is a job resisting its end: the container is
   * restarted, which ends every process in it (its files are in the volume).
   */
  async function endJobs(ws: Known, graceMs: number, givenUp?: AbortSignal, slackMs = stopSlackMs()): Promise<{ empty: boolean; found: boolean }> {
    const stop = planStopExec(ws.user, graceMs);
    let line = '';
    // The job's own end-of-job sweep (the same kill as the same uid) can end this exec as it runs: again, then.
    for (let attempt = 0; attempt < 3; attempt++) {
      // A control exec: given up on once the engine stops answering about it (engine-client.ts watchEngine), when
      // `givenUp` aborts, and once it overruns its grace by its slack. Forwarded by hand and removed after each attempt:
      // AbortSignal.any left a listener on `givenUp` per attempt (a MaxListenersExceededWarning in a run's stderr).
      const spec = { cmd: stop.cmd, env: [], user: stop.user, workingDir: '/' };
      const bounded = new AbortController();
      const overran = new StopOverranError();
      const timer = setTimeout(() => bounded.abort(overran), graceMs + slackMs);
      const forward = () => bounded.abort(givenUp!.reason);
      if (givenUp?.aborted) forward();
      else givenUp?.addEventListener('abort', forward, { once: true });
      try {
        const result = await controlExec(engine, ws.containerId, spec, bounded.signal).catch((error: unknown) => {
          if (error === overran) return null;
          if (statusOf(error) === 409 || statusOf(error) === 404) return { exitCode: 0, stdout: 'none\n', stderr: '' }; // not running: nothing runs
          throw engineFailure('stopping a job', error);
        });
        if (result === null) {
          line = 'overran';
          break;
        }
        line = result.stdout.trim();
      } finally {
        clearTimeout(timer);
        givenUp?.removeEventListener('abort', forward);
      }
      if (line === 'none' || line === 'empty' || line.startsWith('left')) break;
    }
    if (line === 'none') return { empty: true, found: false };
    if (line === 'empty') return { empty: true, found: true };
    return { empty: await restartResisting(ws, givenUp), found: true };
  }

  /** Restarts the workspace's container to end a job that resisted its stop; true once it is up again with nothing of the job left. */
  async function restartResisting(ws: Known, givenUp?: AbortSignal): Promise<boolean> {
    try {
      // t=0: its processes are killed at once (the job had its grace already).
      await engine.getContainer(ws.containerId).restart({ t: 0, ...(givenUp === undefined ? {} : { abortSignal: givenUp }) });
    } catch (error) {
      if (error instanceof EngineSilentError || givenUp?.aborted === true)
        throw engineFailure('restarting the workspace container to end a job that resisted its stop', error);
      return false;
    }
    ws.running = true;
    // A new start of the container: its sockets are bound again before the next job (cgroup v1).
    ws.socketsBound = false;
    return true;
  }

  /** A container made before the job user and the container's init were kept apart: its init would die with a job's kill. */
  function refuseLegacy(ws: Known, id: string): void {
    if (ws.legacy)
      throw new ProviderError(
        `docker workspace ${id} was made by an older headspace whose container runs as its job user, so ending a job would end the container: it runs no more jobs`,
        { hint: 'export what you need from it (export, ls-files still work), then destroy it and create it again' },
      );
  }

  const provider: Provider = {
    name: PROVIDER_NAME,

    async probe() {
      return (await probe()).result;
    },

    async capabilities(): Promise<ProviderCapabilities> {
      const { result, facts } = await probe();
      // An engine that did not answer the probe is not one that enforces nothing: what it enforces is unknown, and
      // a result built on "not ready" said "measured, not enforced" of every limit its container did enforce.
      if (facts.silent === true) throw engineFailure('answering what it enforces', new EngineSilentError('GET version, GET info', PROBE_TIMEOUT_MS));
      const ready = result.ready;
      const notReady = result.checks
        .filter((c) => !c.ok && !ADVISORY_CHECKS.has(c.name))
        .map((c) => `${c.name}: ${c.detail} — ${c.remedy ?? ''}`)
        .join('; ');
      const enforces = Object.fromEntries(LIMIT_NAMES.map((n) => [n, false])) as Record<LimitName, boolean>;
      const reasons: Partial<Record<LimitName, string>> = {};
      enforces.network = ready; // NetworkMode none: a network namespace with loopback only
      enforces.filesystem = ready; // read-only rootfs, the volume and a tmpfs /tmp, no binds
      enforces.memory = ready && facts.memory && facts.swap;
      enforces.pids = ready && facts.pids;
      enforces.cpu = ready && facts.cpu;
      for (const name of ['network', 'filesystem', 'memory', 'pids', 'cpu'] as const) if (!enforces[name]) reasons[name] = notReady || 'not ready';
      reasons.storage = `measured, not enforced: the workspace is a local volume, which no volume driver the engine ships can cap (a single put larger than the whole budget is refused; /tmp is a tmpfs capped at a quarter of the memory budget) — ${REMEDIES.storage}`;
      reasons.wall_clock = "enforced by the engine, which aborts the job; the provider ends every process of the workspace's uid in the container";
      reasons.output_bytes = 'enforced by the engine as a capture cap: past it output is counted, not kept, and the job runs on';
      reasons.concurrency = JOBS_AT_ONCE;
      const layers = ready
        ? [
            'namespaces',
            ...(facts.seccomp ? ['seccomp'] : []),
            'cap-drop',
            'no-new-privileges',
            'read-only-rootfs',
            'non-root-uid',
            `cgroup-v${facts.cgroupVersion ?? '1'}`,
          ]
        : [];
      return { provider: PROVIDER_NAME, enforces, reasons, networkAccess: false, hostPaths: false, layers, durable: true, jobsAtOnce: JOBS_AT_ONCE_DOCKER };
    },

    checkPlan,

    async capacity(): Promise<HostCapacity> {
      const { facts } = await probe();
      // Volumes live under the engine's root directory: when the engine runs on this host, its free space
      // bounds the storage budget (a 158 GiB budget on 78 GiB free was accepted before: probe budget-past-host).
      const local = engineAddress(options.dockerHost).startsWith('unix://');
      const storage =
        facts.rootDir === undefined || !local
          ? undefined
          : await statfs(facts.rootDir).then(
              (s) => ({ path: facts.rootDir!, freeBytes: s.bavail * s.bsize, totalBytes: s.blocks * s.bsize, committedBytes: 0 }),
              () => undefined,
            );
      return {
        ...(facts.memTotal === undefined ? {} : { memoryBytes: facts.memTotal }),
        ...(facts.cpus === undefined ? {} : { cpus: facts.cpus }),
        ...(storage === undefined ? {} : { storage }),
      };
    },

    async create(spec: WorkspaceSpec): Promise<WorkspaceDescriptor> {
      const id = validateId('workspace', spec.workspaceId);
      await checkPlan(spec);
      const { facts } = await readyProbe();
      if (spec.jobUser.uid <= 0 || spec.jobUser.gid <= 0)
        throw new ProviderError(`refusing job identity ${spec.jobUser.uid}:${spec.jobUser.gid} for a docker workspace`, {
          hint: 'this is a headspace bug: the engine allocates non-root job identities',
        });
      if ((await lookup(id)) !== undefined)
        throw new EngineError('WORKSPACE_EXISTS', `docker workspace ${id} already exists`, { hint: 'choose another id, or remove it first' });
      const imageRef = imageOfProfile(spec.profile)!;
      let imageId: string;
      try {
        imageId = (await engine.getImage(imageRef).inspect()).Id;
      } catch (error) {
        throw new EngineError(
          'PROVIDER_UNAVAILABLE',
          `the image of profile ${spec.profile} (${imageRef}) is not in the engine: ${(error as Error).message.split('\n')[0]!.slice(0, 160)}`,
          { hint: REMEDIES.image, cause: error },
        );
      }
      const name = nameOf(id);
      const labels = labelsOf({ workspaceId: id, rootTag });
      const plan = planContainer({
        workspaceId: id,
        rootTag,
        profile: spec.profile,
        imageRef,
        imageId,
        policy: spec.policy,
        jobUser: spec.jobUser,
        name,
        volumeName: name,
        seccompProfile: JSON.stringify(dockerSeccompProfile(facts.arch ?? 'x86_64')),
        ...(facts.cgroupVersion === undefined ? {} : { cgroupVersion: facts.cgroupVersion }),
        // The host's socket "no pressure" line is this host's only when the engine runs here.
        ...(engineAddress(options.dockerHost).startsWith('unix://') ? noPressure() : {}),
      });
      // The policy travels with the container, so any process reads the same budget back (labels cannot change later).
      plan.Labels[LABEL_POLICY] = JSON.stringify(spec.policy);
      let volumeMade = false;
      try {
        await engine.createVolume({ Name: name, Labels: labels });
        volumeMade = true;
        await ownVolume(name, imageId, spec.jobUser, labels);
        const container = await engine.createContainer(plan as unknown as ContainerCreateOptions);
        await container.start();
        await boundSockets(container.id);
      } catch (error) {
        // Undo what this call made; what cannot be undone is named by doctor (labelled leftovers).
        await engine
          .getContainer(name)
          .remove({ force: true })
          .catch(() => undefined);
        if (volumeMade)
          await engine
            .getVolume(name)
            .remove()
            .catch(() => undefined);
        if (statusOf(error) === 409)
          throw new EngineError('WORKSPACE_EXISTS', `docker workspace ${id} already exists`, { hint: 'choose another id, or remove it first' });
        throw engineFailure('creating the workspace', error);
      }
      return { workspaceId: id, state: 'ready', profile: spec.profile, environmentDigest: imageId, storageBytes: 0 };
    },

    async inspect(workspaceId: string): Promise<WorkspaceDescriptor> {
      validateId('workspace', workspaceId);
      known.delete(workspaceId);
      const ws = await lookup(workspaceId);
      if (ws === undefined) return { workspaceId, state: 'missing', profile: '', environmentDigest: '' };
      const storageBytes = await measureVolume(workspaceId, ws.user);
      return { workspaceId, state: 'ready', profile: ws.profile, environmentDigest: ws.imageId, ...(storageBytes === undefined ? {} : { storageBytes }) };
    },

    async findTools(profile: string, names: readonly string[]) {
      const imageRef = imageOfProfile(profile);
      if (imageRef === undefined) return Object.fromEntries(names.map((n) => [n, null]));
      const imageId = (await engine.getImage(imageRef).inspect()).Id;
      return findImageTools(engine, { imageId, rootTag, names });
    },

    /**
     * What the workspace's container uses now, its init included: cpu
     * seconds so far, memory charged now (the cgroup's usage, as native
     * reads it), processes now. Read from the container's cgroup when the
     * engine is on this host (container-usage.ts), else one `one-shot` read
     * of the Engine's stats (up to 1 s). A container that is not running (no
     * job since an engine restart) has nothing to report.
     */
    async liveUsage(workspaceId: string): Promise<LiveUsage> {
      const ws = await lookup(workspaceId);
      if (ws === undefined) return {};
      const container = engine.getContainer(ws.containerId);
      if (engineAddress(options.dockerHost).startsWith('unix://')) {
        const info = await container.inspect().catch(() => undefined);
        if (info?.State.Running !== true) return {};
        const local = await containerCgroupUsage({ id: ws.containerId, pid: info.State.Pid ?? 0 });
        if (local !== undefined) return local;
      }
      const stats = await container.stats({ stream: false, 'one-shot': true }).catch(() => undefined);
      if (stats === undefined || !(stats.pids_stats?.current ?? 0)) return {};
      const cpuNs = stats.cpu_stats?.cpu_usage?.total_usage;
      const memoryBytes = stats.memory_stats?.usage;
      return {
        ...(typeof cpuNs === 'number' ? { cpuSeconds: cpuNs / 1e9 } : {}),
        ...(typeof memoryBytes === 'number' ? { memoryBytes } : {}),
        pids: stats.pids_stats!.current!,
      };
    },

    async run(request: RunRequest): Promise<JobOutcome> {
      const id = request.workspaceId;
      const ws = await requireWorkspace(id);
      validateId('job', request.jobId);
      refuseLegacy(ws, id);
      if (ws.policy.budget.concurrency > JOBS_AT_ONCE_DOCKER || request.policy.budget.concurrency > JOBS_AT_ONCE_DOCKER)
        throw new EngineError('POLICY_DENIED', `the docker provider runs one job at a time per workspace: ${JOBS_AT_ONCE}`, {
          hint: 'destroy the workspace and create it again with a concurrency of 1',
        });
      const cwd = normalizeWorkspacePath(request.cwd ?? '', { allowRoot: true });
      if (cwd !== '') {
        const cwdBytes = Buffer.concat(pathComponents(cwd).flatMap((part, i) => (i === 0 ? [part] : [Buffer.from('/'), part])));
        if (!Buffer.from(cwdBytes.toString('utf8'), 'utf8').equals(cwdBytes)) {
          throw new EngineError('BAD_PATH', `working directory '${cwd.slice(0, 80)}' has a name that is not valid UTF-8`, {
            hint: 'run from a parent directory and have the command change into it',
          });
        }
        if (!(await workspaceFiles(engine, ws.containerId, ws.user, ws.policy.budget.storageBytes).isDirectory(cwd))) {
          throw new EngineError('BAD_PATH', `working directory '${cwd.slice(0, 80)}' is not a directory in the workspace`, {
            hint: `cwd is relative to /workspace: make it first with a job (mkdir -p ${cwd.slice(0, 80)}), or see the directories there are`,
            action: nextAction('ls-files', { workspaceId: id }),
          });
        }
      }
      if (request.signal.aborted) return { exitCode: null, signal: null, oomKilled: false, stopped: false, aborted: true, durationMs: 0, usage: {} };
      await ensureRunning(ws);
      const plan = planJobExec({
        argv: request.argv,
        env: request.env,
        cwd: cwd === '' ? '' : Buffer.concat(pathComponents(cwd).flatMap((p, i) => (i === 0 ? [p] : [Buffer.from('/'), p]))).toString('utf8'),
        user: ws.user,
      });
      const beganAt = markers.begin(id, request.jobId);
      let ending: Promise<unknown> | undefined;
      // Once the job is aborted (its wall clock, a caller's cancel), an engine that stopped answering is given up on
      // after GIVE_UP_AFTER_ABORT_MS: its stream and every call still waiting are destroyed, and the job ends as lost.
      const givingUp = new AbortController();
      let giveUpTimer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        giveUpTimer ??= setTimeout(
          () => givingUp.abort(new EngineSilentError(`job ${request.jobId}'s end, after it was aborted`, GIVE_UP_AFTER_ABORT_MS)),
          GIVE_UP_AFTER_ABORT_MS,
        );
        // The job's exec may not have started yet: try again until it is gone.
        ending ??= (async () => {
          for (let attempt = 0; attempt < 20 && !finished && !givingUp.signal.aborted; attempt++) {
            // A resisting job's container is restarted well before the give-up: with the stop's own slack (30 s) the
            // give-up came first, and a job that froze its stop failed its workspace as if the engine had gone quiet.
            const { found } = await endJobs(ws, 0, givingUp.signal, ABORT_STOP_SLACK_MS).catch(() => ({ found: false }));
            if (found && attempt > 0) break;
            await new Promise((r) => setTimeout(r, 100));
          }
        })();
      };
      let finished = false;
      const since = Date.now();
      const started = performance.now();
      try {
        request.signal.addEventListener('abort', onAbort, { once: true });
        if (request.signal.aborted) onAbort();
        const spec = { cmd: plan.cmd, env: plan.env, user: plan.user, workingDir: plan.workingDir };
        const exec = await runExec(engine, ws.containerId, spec, request.onOutput, givingUp.signal)
          .catch(async (error: unknown) => {
            // 409: the container is not running (an engine restart, or a job that signalled its init): the exec was
            // never created, so start the container again and run the job once more.
            if (statusOf(error) !== 409) throw error;
            ws.running = false;
            await ensureRunning(ws);
            return runExec(engine, ws.containerId, spec, request.onOutput, givingUp.signal).catch((again: unknown) => {
              known.delete(id);
              throw again;
            });
          })
          .catch(async (error: unknown) => {
            const afterAbort = givingUp.signal.aborted;
            if (!afterAbort && !(error instanceof EngineSilentError)) throw error instanceof EngineError ? error : engineFailure('running the job', error);
            // The engine went quiet before the job's stream began (its exec created, its start sent, and no answer): the
            // job may run all the same, unwatched and past any wall clock. Ended here if the engine answers that (red
            // team, session 18: a `sleep` ran on, the workspace ready).
            if (
              !afterAbort &&
              (await endJobs(ws, 0, givingUp.signal).then(
                (r) => r.empty,
                () => false,
              ))
            )
              throw engineFailure('running the job', error);
            throw lostToQuietEngine(id, request.jobId, afterAbort, error);
          });
        finished = true;
        const durationMs = performance.now() - started;
        const signalled = exec.exitCode !== null && exec.exitCode > 128 && exec.exitCode < 128 + 65;
        // Its own sentinel, or a stop of no named job that began before this run was live and so could not name it.
        const stopped = markers.wasStopped(id, request.jobId) || (signalled && markers.stoppedAllSince(id, beganAt));
        const aborted = request.signal.aborted;
        // The kernel's OOM kill as the engine reports it (an `oom` event for the container), never guessed from 137;
        // a SIGKILL exit makes us wait a moment for the event, which the engine can record just after the exit.
        const oomKilled = await oomDuring(engine, ws.containerId, since, exec.exitCode === 137 ? 500 : 0);
        const killed = signalled && (stopped || aborted || oomKilled);
        return {
          exitCode: killed ? null : exec.exitCode,
          signal: killed ? signalName(exec.exitCode! - 128) : null,
          oomKilled,
          stopped,
          aborted,
          durationMs: Math.round(durationMs * 1000) / 1000,
          usage: {},
        };
      } finally {
        finished = true;
        clearTimeout(giveUpTimer);
        request.signal.removeEventListener('abort', onAbort);
        await ending;
        markers.end(id, request.jobId);
      }
    },

    async read(workspaceId, path, chunkBytes) {
      const ws = await requireWorkspace(workspaceId);
      return workspaceFiles(engine, ws.containerId, ws.user, ws.policy.budget.storageBytes).read(path, chunkBytes);
    },

    async write(workspaceId, path, data, writeOptions) {
      const ws = await requireWorkspace(workspaceId);
      await workspaceFiles(engine, ws.containerId, ws.user, ws.policy.budget.storageBytes).write(path, data, writeOptions);
    },

    async removePath(workspaceId, path) {
      const ws = await requireWorkspace(workspaceId);
      await ensureRunning(ws);
      await workspaceFiles(engine, ws.containerId, ws.user, ws.policy.budget.storageBytes).remove(path);
    },

    async list(workspaceId, path, limit) {
      const ws = await requireWorkspace(workspaceId);
      return workspaceFiles(engine, ws.containerId, ws.user, ws.policy.budget.storageBytes).list(path, limit);
    },

    async stop(workspaceId: string, stopOptions: StopOptions = {}): Promise<StopReport> {
      const ws = await requireWorkspace(workspaceId);
      const graceMs = stopOptions.graceMs ?? DEFAULT_STOP_GRACE_MS;
      let live = markers.live(workspaceId);
      if (stopOptions.jobId !== undefined && !live.includes(stopOptions.jobId)) return { stopped: false, empty: true };
      if (live.length === 0) {
        // No run is waiting on a job here, but one whose caller died leaves its exec running in the container: end
        // every process of the workspace's uid (an idle container has none), with the grace a TERM handler is promised.
        // A run that begins meanwhile is ended too, and learns it from the stop-all marker (job-markers.ts).
        const startedAt = markers.beginStopAll(workspaceId);
        let found = true;
        try {
          const ended = await endJobs(ws, graceMs);
          found = ended.found;
          if (found) return { stopped: true, empty: ended.empty };
        } finally {
          markers.endStopAll(workspaceId, startedAt, found);
        }
        // Nothing ran. A stop comes when the store records a job running, and a run records its job before its exec
        // starts: wait a moment for that run (as below), or a stop reported the job cancelled while it ran to its end
        // (red team, session 19).
        for (let attempt = 0; attempt < 20 && live.length === 0; attempt++) {
          await new Promise((r) => setTimeout(r, 100));
          live = markers.live(workspaceId);
        }
        if (live.length === 0) return { stopped: false, empty: true };
      }
      const targets = stopOptions.jobId === undefined ? live : live.filter((job) => job === stopOptions.jobId);
      // The sentinels first, then the signals: each run() reads its own to report stopped=true. Which job
      // is live comes from these host-side markers, never from anything inside the container.
      for (const job of targets) markers.markStopped(workspaceId, job);
      // One job at a time: its processes are every process of the workspace's uid.
      let result = await endJobs(ws, graceMs);
      for (let attempt = 0; attempt < 20 && !result.found && markers.live(workspaceId).some((job) => targets.includes(job)); attempt++) {
        // Its exec has not started yet (the run was just begun): again, shortly.
        await new Promise((r) => setTimeout(r, 100));
        result = await endJobs(ws, graceMs);
      }
      return { stopped: true, empty: result.empty };
    },

    async remove(workspaceId: string): Promise<RemovalDisposition> {
      validateId('workspace', workspaceId);
      known.delete(workspaceId);
      const removed: RemovableResource[] = [];
      const retained: RemovableResource[] = [];
      const unverified: RemovableResource[] = [];
      for (const job of markers.live(workspaceId)) markers.markStopped(workspaceId, job);
      const name = nameOf(workspaceId);
      // Asked first within the ordinary bound: a hung engine then costs a destroy 10 s, not the removal's two minutes.
      // An engine that did not answer, or could not be reached (down, its socket gone, DOCKER_HOST pointing elsewhere),
      // fails the removal: the workspace stays as it was, and destroying it again once the engine answers finishes it.
      // Returned as unverified, the workspace was recorded destroyed and its container, volume and job ran on with
      // nothing to find them (red team, sessions 18 and 19: a silent engine, then a stopped one). Only an engine's own
      // answer (a status) that is not 404 or 409 is left unverified.
      const unanswered = (error: unknown) => error instanceof EngineSilentError || statusOf(error) === undefined;
      await engine
        .getContainer(name)
        .inspect()
        .catch((error: unknown) => {
          if (unanswered(error)) throw engineFailure('answering about the workspace container', error);
        });
      try {
        await engine.getContainer(name).remove({ force: true, v: false });
        removed.push('runtime');
      } catch (error) {
        if (unanswered(error)) throw engineFailure('removing the workspace container', error);
        if (statusOf(error) === 404) removed.push('runtime');
        else unverified.push('runtime');
      }
      try {
        await engine.getVolume(name).remove();
        removed.push('storage');
      } catch (error) {
        if (unanswered(error)) throw engineFailure('removing the workspace volume', error);
        if (statusOf(error) === 404) removed.push('storage');
        else if (statusOf(error) === 409) retained.push('storage');
        else unverified.push('storage');
      }
      return { removed, retained, unverified };
    },

    async listWorkspaces(): Promise<string[]> {
      const containers = await engine.listContainers({ all: true, filters: { label: [`${LABEL_ROOT}=${rootTag}`] } });
      return containers
        .filter((c) => c.Labels[LABEL_WORKSPACE] !== undefined && c.Labels[LABEL_HELPER] === undefined)
        .map((c) => c.Labels[LABEL_WORKSPACE]!)
        .sort();
    },

    // An engine that is not set up here (probe says unconfigured) holds nothing of ours to list.
    leftovers: async () => {
      const probed = (await probe()).result;
      if (probed.unconfigured === true) return [];
      // An engine that did not answer the probe (bounded: probe.ts) is not asked again: one that accepts and never
      // answers held doctor, the recovery tool, forever. Its failed engine check already says nothing could be asked of it.
      if (probed.checks.some((c) => c.name === 'engine' && !c.ok)) return [];
      // And one that answered it and then stalls is given as long as the probe was.
      return withinMs(PROBE_TIMEOUT_MS, sweeper.list());
    },
    removeLeftover: (leftover: Leftover) => sweeper.remove(leftover),
  };
  const sweeper = dockerLeftovers(engine, rootTag, nameOf);

  /**
   * Storage is measured, not enforced: the bytes of the workspace's regular
   * files, walked on this host without following a link (native's safe-fs
   * walk) when the engine is local and its volume directory is readable
   * here; otherwise unknown (the engine's own /system/df would size every
   * volume it holds on each call).
   */
  function noPressure(): { hostNoPressurePages?: number } {
    const pages = hostNoPressurePages();
    return pages === undefined ? {} : { hostNoPressurePages: pages };
  }

  async function measureVolume(workspaceId: string, user: JobUser): Promise<number | undefined> {
    if (!engineAddress(options.dockerHost).startsWith('unix://')) return undefined;
    try {
      const volume = await engine.getVolume(nameOf(workspaceId)).inspect();
      if (volume.Driver !== 'local' || !existsSync(volume.Mountpoint)) return undefined;
      return await (await openSafeFs(volume.Mountpoint, user)).measure();
    } catch {
      return undefined;
    }
  }

  /**
   * The new volume's root belongs to root; the job user must own it. The
   * archive API cannot chown a mount point, and the workspace container
   * holds no capability, so a one-shot helper container with CAP_CHOWN alone
   * (no network, read-only rootfs, our own fixed command) does it, before any
   * job could run.
   */
  async function ownVolume(volumeName: string, imageId: string, user: JobUser, labels: Record<string, string>): Promise<void> {
    const helper = await engine.createContainer(
      planVolumeOwner({ name: `${volumeName}-own`, imageId, volumeName, user, labels }) as unknown as ContainerCreateOptions,
    );
    try {
      await helper.start();
      const { StatusCode } = (await helper.wait()) as { StatusCode: number };
      if (StatusCode !== 0)
        throw new ProviderError(`giving the workspace volume to its job user failed (chown exited ${StatusCode})`, {
          hint: 'the profile image needs /bin/chown (busybox or coreutils)',
        });
    } finally {
      await helper.remove({ force: true }).catch(() => undefined);
    }
  }

  return provider;
}
