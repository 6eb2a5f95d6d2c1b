/**
 * The swarm provider (#22): a workspace is a Swarm service with one replica
 * (restart condition none) whose task anchors it on the node Swarm chose
 * (plan-service.ts: placement, the reservation of its memory and cpu, its
 * volume, liveness), plus the docker provider's own workspace container on
 * that node, made and used through that node's Engine API by a docker
 * provider bound to it: the same HostConfig, seccomp profile, masked paths,
 * socket-buffer bound and job handling as on docker, nothing copied.
 * Placement is Swarm's (spread, and the operator's constraints from
 * HEADSPACE_SWARM_CONSTRAINTS), never ours.
 *
 * The manager's API cannot reach a node's engine, so each node carries the
 * label dev.headspace.engine=<its Engine API address> (scripts/setup-swarm.sh
 * sets it; an operator sets it with `docker node update --label-add`); the
 * probe refuses a swarm with a ready node that lacks it (Swarm cannot
 * constrain on a label's presence).
 *
 * State: the engine's store stays where the CLI runs; the provider's own
 * view lives in the service's labels (workspace id, root tag, policy, job
 * user, profile), so another process, or doctor after a controller crash,
 * reads it back from the manager.
 *
 * Node loss: a task whose node is down, or which is no longer running, is
 * not re-run (restart condition none): the workspace is lost with the node's
 * name (its files were on that node), and a job meeting it ends with a
 * WorkspaceLostError (the job infrastructure_failure, the workspace failed).
 */
import { EngineError, ProviderError, WorkspaceLostError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { notReadyError } from '../../core/infrastructure-errors.js';
import { validateId } from '../../core/ids.js';
import { LIMIT_NAMES, type LimitName } from '../../core/policy/policy.js';
import type {
  HostCapacity,
  JobOutcome,
  Leftover,
  LiveUsage,
  ProbeCheck,
  ProbeResult,
  Provider,
  ProviderCapabilities,
  RemovableResource,
  RemovalDisposition,
  RunRequest,
  WorkspaceDescriptor,
  WorkspacePlan,
  WorkspaceSpec,
} from '../../core/provider.js';
import { createDockerProvider, rootTagOf } from '../docker/docker-provider.js';
import { connectEngine, statusOf, type Engine } from '../docker/engine-client.js';
import { labelsOf, LABEL_JOB_USER, LABEL_POLICY, LABEL_PROFILE, LABEL_ROOT, LABEL_WORKSPACE } from '../docker/plan-container.js';
import { imageOfProfile } from '../docker/profiles.js';
import { PROBE_TIMEOUT_MS, withinMs } from '../docker/probe.js';
import { SILENT_ENGINE_HINT, isEngineSilence } from '../docker/answer-bounds.js';
import { planAnchor } from './plan-service.js';
import { swarmLeftovers } from './swarm-leftovers.js';
import { nodeMeetsConstraints, type SwarmNodeFacts } from './node-constraints.js';

export const SWARM_PROVIDER_NAME = 'swarm';
/** The node label naming the node's own Engine API address (unix:// or tcp://). */
export const LABEL_NODE_ENGINE = 'dev.headspace.engine';

const REMEDY =
  'point HEADSPACE_SWARM_HOST at a Swarm manager whose nodes carry the label dev.headspace.engine=<their Engine API address> and run dockerd with no default bridge ("bridge": "none" in daemon.json) (as root, for a test swarm on this machine, in a clone of headspace: eval "$(bash scripts/setup-swarm.sh)")';

/** What a caller does about a lost workspace: Swarm moves nothing, so only a new one helps. */
const LOST_NEXT = (id: string) => ({
  hint: 'Swarm does not move a workspace: destroy it and create it again (its files went with its node)',
  action: nextAction('destroy', { workspaceId: id }),
});

/** How long a new task may take to reach running before create gives up (image present on every node: a few seconds). */
const TASK_START_MS = 60_000;

export interface SwarmProviderOptions {
  /** State directory (job markers, as the docker provider keeps them); its path also tags our services. */
  root: string;
  /** The manager's Engine API address; default HEADSPACE_SWARM_HOST. */
  managerHost?: string;
  /** Extra placement constraints (Swarm's syntax, e.g. `node.labels.pool==agents`); default HEADSPACE_SWARM_CONSTRAINTS, comma-separated. */
  constraints?: string[];
}

interface Placement {
  /** The node's hostname and address, for messages. */
  node: string;
  /** Null when the workspace is lost, with why in `lost`. */
  engine: string | null;
  containerId: string | null;
  lost: string | null;
}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 240);
}

export function createSwarmProvider(options: SwarmProviderOptions): Provider {
  const managerHost = options.managerHost ?? process.env.HEADSPACE_SWARM_HOST ?? '';
  const manager: Engine = connectEngine(managerHost === '' ? 'unix:///nonexistent/headspace-swarm-manager.sock' : managerHost);
  const rootTag = rootTagOf(options.root);
  const nameOf = (id: string) => `hs-${rootTag}-${id}`;
  // The operator's placement constraints; Swarm places within them. (Swarm cannot constrain on a label's presence,
  // so the probe instead refuses a swarm with a ready node that lacks the engine label.)
  const constraints =
    options.constraints ??
    (process.env.HEADSPACE_SWARM_CONSTRAINTS ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter((c) => c !== '');
  const perNode = new Map<string, Provider>();
  const nodeProvider = (engine: string): Provider => {
    let p = perNode.get(engine);
    if (p === undefined) {
      p = createDockerProvider({ root: options.root, dockerHost: engine, volumeMadeByAnchor: true });
      perNode.set(engine, p);
    }
    return p;
  };
  const nodeEngines = new Map<string, Engine>();
  const nodeEngine = (address: string): Engine => {
    let e = nodeEngines.get(address);
    if (e === undefined) nodeEngines.set(address, (e = connectEngine(address)));
    return e;
  };

  function managerFailure(what: string, error: unknown): ProviderError {
    return new ProviderError(`the Swarm manager failed ${what}: ${message(error)}`, {
      // A manager that is up but silent needs the silent engine's remedy, not the set-up's.
      hint: isEngineSilence(error) ? SILENT_ENGINE_HINT : `${REMEDY}; doctor checks the swarm provider`,
      action: nextAction('doctor', { provider: SWARM_PROVIDER_NAME }),
      cause: error,
    });
  }

  /**
   * The task makes the workspace volume on its node by name, and a node's engine answers a volume of a name it has
   * with that volume: an earlier workspace's volume of this id left on a node (retained in use, or a removal not
   * verified) would be mounted again with its files (red team, session 20; the docker provider refuses the same).
   * Every usable node is asked, at once, before anything is recorded (checkPlan) and again before the service exists.
   */
  async function refuseEarlierVolume(id: string): Promise<void> {
    // With its service, the volume is a workspace's own: create refuses that one as existing.
    if ((await serviceLabels(id)) !== undefined) return;
    const { nodes } = await probe();
    const found = await Promise.all(
      nodes.map(async (node) => {
        try {
          await withinMs(PROBE_TIMEOUT_MS, nodeEngine(node.engine).getVolume(nameOf(id)).inspect());
          return node.name;
        } catch (error) {
          if (statusOf(error) === 404) return undefined;
          throw new ProviderError(`the engine of node ${node.name} failed answering about the workspace volume: ${message(error)}`, {
            hint: isEngineSilence(error) ? SILENT_ENGINE_HINT : `${REMEDY}; doctor checks the swarm provider`,
            action: nextAction('doctor', { provider: SWARM_PROVIDER_NAME }),
            cause: error,
          });
        }
      }),
    );
    const on = found.filter((n): n is string => n !== undefined);
    if (on.length > 0)
      throw new EngineError(
        'WORKSPACE_EXISTS',
        `the volume of an earlier swarm workspace ${id} is still on node ${on.join(', ')}, with its files; nothing was created`,
        {
          hint: "doctor's repair with apply removes it once nothing uses it (a volume whose service is gone); then create it again, or choose another id",
          action: nextAction('doctor', { repair: true, apply: true }),
        },
      );
  }

  async function serviceLabels(id: string): Promise<Record<string, string> | undefined> {
    try {
      // Bounded, as every call of locate (each verb's reconcile and doctor ask it): a silent manager held them forever.
      const info = (await withinMs(PROBE_TIMEOUT_MS, manager.getService(nameOf(id)).inspect())) as { Spec: { Labels?: Record<string, string> } };
      const labels = info.Spec.Labels ?? {};
      return labels[LABEL_ROOT] === rootTag && labels[LABEL_WORKSPACE] === id ? labels : undefined;
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw managerFailure('inspecting the workspace service', error);
    }
  }

  /** Where the workspace's one task runs, or why it is lost; undefined when there is no such workspace. */
  async function locate(id: string): Promise<Placement | undefined> {
    validateId('workspace', id);
    if ((await serviceLabels(id)) === undefined) return undefined;
    let tasks: Array<{
      NodeID?: string;
      DesiredState?: string;
      CreatedAt?: string;
      Status?: { State?: string; Err?: string; ContainerStatus?: { ContainerID?: string } };
    }>;
    try {
      tasks = (await withinMs(PROBE_TIMEOUT_MS, manager.listTasks({ filters: { service: [nameOf(id)] } }))) as typeof tasks;
    } catch (error) {
      throw managerFailure('listing the workspace task', error);
    }
    // One replica, never restarted: the newest task is the workspace's only one.
    const task = tasks.sort((a, b) => (a.CreatedAt ?? '').localeCompare(b.CreatedAt ?? '')).at(-1);
    if (task === undefined || task.NodeID === undefined || task.NodeID === '')
      return { node: '?', engine: null, containerId: null, lost: 'Swarm has not placed its task on any node' };
    let node: { Description?: { Hostname?: string }; Spec?: { Labels?: Record<string, string> }; Status?: { State?: string; Addr?: string } };
    try {
      node = (await withinMs(PROBE_TIMEOUT_MS, manager.getNode(task.NodeID).inspect())) as typeof node;
    } catch (error) {
      if (statusOf(error) === 404) return { node: task.NodeID, engine: null, containerId: null, lost: `its node ${task.NodeID} has left the swarm` };
      throw managerFailure('inspecting the workspace node', error);
    }
    const name = `${node.Description?.Hostname ?? task.NodeID} (${node.Status?.Addr ?? '?'})`;
    const engine = node.Spec?.Labels?.[LABEL_NODE_ENGINE] ?? null;
    const containerId = task.Status?.ContainerStatus?.ContainerID ?? null;
    let lost: string | null = null;
    if (node.Status?.State !== 'ready') lost = `its node ${name} is ${node.Status?.State ?? 'unknown'}; its files were on that node`;
    else if (task.Status?.State !== 'running')
      lost = `its task on node ${name} is ${task.Status?.State ?? 'unknown'}${task.Status?.Err ? ` (${task.Status.Err})` : ''}`;
    else if (engine === null) lost = `its node ${name} has no ${LABEL_NODE_ENGINE} label`;
    return { node: name, engine, containerId, lost };
  }

  /** The docker provider bound to the node running the workspace; a lost workspace throws (exit 7), naming its node. */
  async function onNode(id: string): Promise<{ provider: Provider; placement: Placement }> {
    const placement = await locate(id);
    if (placement === undefined)
      throw new EngineError('WORKSPACE_NOT_FOUND', `no swarm workspace ${id}`, { hint: 'list the workspaces', action: nextAction('ls') });
    if (placement.lost !== null || placement.engine === null) {
      const reason = placement.lost ?? 'no engine';
      throw new WorkspaceLostError(`swarm workspace ${id} is lost: ${reason}`, reason, LOST_NEXT(id));
    }
    return { provider: nodeProvider(placement.engine), placement };
  }

  let probing: Promise<{ result: ProbeResult; nodes: Array<{ engine: string; name: string }> }> | undefined;
  async function probeSwarm(): Promise<{ result: ProbeResult; nodes: Array<{ engine: string; name: string }> }> {
    const checks: ProbeCheck[] = [];
    const nodes: Array<{ engine: string; name: string }> = [];
    const done = () => ({ result: { provider: SWARM_PROVIDER_NAME, ready: checks.every((c) => c.ok || c.advisory === true), checks }, nodes });
    if (managerHost === '') {
      checks.push({ name: 'swarm-manager', ok: false, detail: 'HEADSPACE_SWARM_HOST is not set', remedy: REMEDY });
      const { result } = done();
      return { result: { ...result, unconfigured: true }, nodes };
    }
    let info: { Swarm?: { LocalNodeState?: string; ControlAvailable?: boolean; Nodes?: number } };
    try {
      // Bounded, as the docker probe is: a manager address that accepts and never answers held doctor forever.
      info = (await withinMs(PROBE_TIMEOUT_MS, manager.info())) as typeof info;
    } catch (error) {
      checks.push({ name: 'swarm-manager', ok: false, detail: `no engine answers at ${managerHost}: ${message(error)}`, remedy: REMEDY });
      return done();
    }
    const isManager = info.Swarm?.LocalNodeState === 'active' && info.Swarm.ControlAvailable === true;
    checks.push({
      name: 'swarm-manager',
      ok: isManager,
      detail: isManager
        ? `a manager of a swarm of ${info.Swarm?.Nodes ?? '?'} nodes`
        : `the engine at ${managerHost} is not a swarm manager (${info.Swarm?.LocalNodeState ?? 'inactive'})`,
      remedy: REMEDY,
    });
    if (!isManager) return done();
    let listed: Array<SwarmNodeFacts & { Spec?: { Availability?: string }; Status?: { State?: string } }>;
    try {
      listed = (await withinMs(PROBE_TIMEOUT_MS, manager.listNodes())) as typeof listed;
    } catch (error) {
      // A check that failed, not a probe that threw: doctor reported a thrown probe as an internal error (exit 7).
      checks.push({ name: 'swarm-nodes', ok: false, detail: `the manager did not list its nodes: ${message(error)}`, remedy: REMEDY });
      return done();
    }
    const image = imageOfProfile('host');
    const problems: string[] = [];
    for (const node of listed) {
      const name = node.Description?.Hostname ?? '?';
      const engine = node.Spec?.Labels?.[LABEL_NODE_ENGINE];
      // A node that is down, drained or paused takes no new task: its engine, image or labels cannot stop a create (a
      // node joining drains until it is labelled, scripts/add-swarm-node.sh).
      if (node.Status?.State !== 'ready' || (node.Spec?.Availability ?? 'active') !== 'active') continue;
      // Nor does one this provider's constraints exclude (node-constraints.ts).
      if (!nodeMeetsConstraints(node, constraints)) continue;
      if (engine === undefined) {
        problems.push(`${name} has no ${LABEL_NODE_ENGINE} label, so a job placed there could not be run`);
        continue;
      }
      try {
        const e = nodeEngine(engine);
        // Fail closed on the network: a task with no network gets the node's default bridge if it has one.
        const networks = (await withinMs(PROBE_TIMEOUT_MS, e.listNetworks())) as Array<{ Name: string }>;
        if (networks.some((n) => n.Name === 'bridge'))
          problems.push(`${name} has a default bridge network (run its dockerd with "bridge": "none" in daemon.json)`);
        else if (
          image !== undefined &&
          // Only a 404 is a missing image: a silent engine is said to be one (below), not to lack it.
          !(await withinMs(PROBE_TIMEOUT_MS, e.getImage(image).inspect()).then(
            () => true,
            (error: unknown) => (statusOf(error) === 404 ? false : Promise.reject(error as Error)),
          ))
        )
          problems.push(`${name} lacks the image ${image}`);
        else nodes.push({ engine, name });
      } catch (error) {
        problems.push(`${name}'s engine at ${engine} does not answer: ${message(error)}`);
      }
    }
    checks.push({
      name: 'swarm-nodes',
      ok: nodes.length > 0 && problems.length === 0,
      detail: `${nodes.length} usable node(s) of ${listed.length}${problems.length > 0 ? `; ${problems.join('; ')}` : ''}`,
      remedy: REMEDY,
    });
    return done();
  }
  const probe = () => (probing ??= probeSwarm());

  async function checkPlan(plan: WorkspacePlan): Promise<void> {
    validateId('workspace', plan.workspaceId);
    if (imageOfProfile(plan.profile) === undefined)
      throw new EngineError('BAD_ARGUMENT', `the swarm provider has no profile '${plan.profile.slice(0, 40)}'`, {
        hint: 'map the profile to an image present on every node with HEADSPACE_DOCKER_IMAGE_<PROFILE>=<image>, or use profile host',
      });
    const refusal =
      plan.policy.network !== 'disabled'
        ? 'the swarm provider gives workspaces no network (a task with no network on a node without a default bridge: loopback only)'
        : plan.policy.hostPaths.length > 0
          ? 'the swarm provider mounts no host paths: which host would they come from'
          : plan.policy.budget.concurrency > 1
            ? 'the swarm provider runs one job at a time per workspace, as the docker provider does'
            : null;
    if (refusal !== null) throw new EngineError('POLICY_DENIED', refusal, { hint: 'create it with network disabled, no host paths and a concurrency of 1' });
    await refuseEarlierVolume(plan.workspaceId);
  }

  const provider: Provider = {
    name: SWARM_PROVIDER_NAME,

    async probe() {
      return (await probe()).result;
    },

    /**
     * A node's docker provider's, under this provider's name: the workspace container is that provider's on
     * whichever node Swarm picks, and every node runs the same engine set-up (the probe checks each answers).
     */
    async capabilities(): Promise<ProviderCapabilities> {
      const { result, nodes } = await probe();
      const enforces = Object.fromEntries(LIMIT_NAMES.map((n) => [n, false])) as Record<LimitName, boolean>;
      if (!result.ready || nodes[0] === undefined) {
        const notReady = result.checks
          .filter((c) => !c.ok)
          .map((c) => `${c.name}: ${c.detail}`)
          .join('; ');
        const reasons = Object.fromEntries(LIMIT_NAMES.map((n) => [n, notReady || 'not ready'])) as Record<LimitName, string>;
        return { provider: SWARM_PROVIDER_NAME, enforces, reasons, networkAccess: false, hostPaths: false, layers: [], durable: true, jobsAtOnce: 1 };
      }
      const node = await nodeProvider(nodes[0].engine).capabilities();
      return {
        ...node,
        provider: SWARM_PROVIDER_NAME,
        reasons: {
          ...node.reasons,
          storage: 'measured, not enforced: the workspace is a local volume on the node Swarm placed it on, which no volume driver the engine ships can cap',
        },
      };
    },

    checkPlan,

    /**
     * The smallest node's, over the usable nodes (each node's docker provider measures its own engine): Swarm
     * picks the node after create is asked, so a budget is held to what every node can give (storage above all,
     * which Swarm does not account for; memory is also reserved, which Swarm does).
     */
    async capacity(): Promise<HostCapacity> {
      const { nodes } = await probe();
      const each = await Promise.all(nodes.map((n) => nodeProvider(n.engine).capacity?.() ?? Promise.resolve({} as HostCapacity)));
      const least = <T>(values: Array<T | undefined>, by: (v: T) => number): T | undefined =>
        values.some((v) => v === undefined) ? undefined : (values as T[]).sort((a, b) => by(a) - by(b))[0];
      const memoryBytes = least(
        each.map((c) => c.memoryBytes),
        (v) => v,
      );
      const cpus = least(
        each.map((c) => c.cpus),
        (v) => v,
      );
      const storage = least(
        each.map((c) => c.storage),
        (v) => v.freeBytes - v.committedBytes,
      );
      return {
        ...(memoryBytes === undefined ? {} : { memoryBytes }),
        ...(cpus === undefined ? {} : { cpus }),
        ...(storage === undefined ? {} : { storage }),
      };
    },

    async create(spec: WorkspaceSpec): Promise<WorkspaceDescriptor> {
      const id = validateId('workspace', spec.workspaceId);
      await checkPlan(spec);
      const { result } = await probe();
      if (!result.ready) throw notReadyError(SWARM_PROVIDER_NAME, result.checks);
      if (spec.jobUser.uid <= 0 || spec.jobUser.gid <= 0)
        throw new ProviderError(`refusing job identity ${spec.jobUser.uid}:${spec.jobUser.gid}`, { hint: 'this is a headspace bug' });
      if ((await serviceLabels(id)) !== undefined)
        throw new EngineError('WORKSPACE_EXISTS', `swarm workspace ${id} already exists`, { hint: 'choose another id, or remove it first' });
      const imageRef = imageOfProfile(spec.profile)!;
      let imageId: string;
      try {
        // By id: the service then never makes a node pull (no registry needed), and a moved tag never changes a workspace.
        imageId = (await manager.getImage(imageRef).inspect()).Id;
      } catch (error) {
        throw new EngineError('PROVIDER_UNAVAILABLE', `the image of profile ${spec.profile} (${imageRef}) is not on the manager: ${message(error)}`, {
          hint: 'load the image on every node (docker save | docker load), as scripts/setup-swarm.sh does',
        });
      }
      const labels = {
        ...labelsOf({ workspaceId: id, rootTag }),
        [LABEL_POLICY]: JSON.stringify(spec.policy),
        [LABEL_JOB_USER]: `${spec.jobUser.uid}:${spec.jobUser.gid}`,
        [LABEL_PROFILE]: spec.profile,
      };
      try {
        await manager.createService(planAnchor({ name: nameOf(id), imageId, policy: spec.policy, labels, constraints }) as never);
      } catch (error) {
        if (statusOf(error) === 409)
          throw new EngineError('WORKSPACE_EXISTS', `swarm workspace ${id} already exists`, { hint: 'choose another id, or remove it first' });
        throw managerFailure('creating the workspace service', error);
      }
      try {
        const deadline = Date.now() + TASK_START_MS;
        let placement = await locate(id);
        while (
          placement !== undefined &&
          placement.lost !== null &&
          Date.now() < deadline &&
          !/failed|rejected|shutdown|complete|orphaned|no suitable node/.test(placement.lost)
        ) {
          await new Promise((r) => setTimeout(r, 100));
          placement = await locate(id);
        }
        // The task reserves the workspace's memory: a budget no node has room for is never placed.
        if (placement?.lost?.includes('no suitable node'))
          throw new EngineError('POLICY_DENIED', `no node of the swarm can hold this workspace's budget: ${placement.lost}`, {
            hint: 'ask for less memory, or add a node with room for it',
          });
        if (placement === undefined || placement.lost !== null || placement.engine === null)
          throw new ProviderError(`the workspace task did not start: ${placement?.lost ?? 'the service vanished'}`, { hint: REMEDY });
        // The workspace container: the docker provider's own, on the task's node, in the volume the task holds there.
        const made = await nodeProvider(placement.engine).create(spec);
        if (made.environmentDigest !== imageId)
          throw new ProviderError(`the image of profile ${spec.profile} on ${placement.node} is not the manager's (${made.environmentDigest} ≠ ${imageId})`, {
            hint: 'load the same image on every node (docker save | docker load), as scripts/setup-swarm.sh does',
          });
      } catch (error) {
        await provider.remove(id).catch(() => undefined);
        throw error instanceof EngineError ? error : managerFailure('starting the workspace task', error);
      }
      return { workspaceId: id, state: 'ready', profile: spec.profile, environmentDigest: imageId, storageBytes: 0 };
    },

    async inspect(workspaceId: string): Promise<WorkspaceDescriptor> {
      validateId('workspace', workspaceId);
      const labels = await serviceLabels(workspaceId);
      if (labels === undefined) return { workspaceId, state: 'missing', profile: '', environmentDigest: '' };
      const placement = await locate(workspaceId);
      // A lost workspace is one the provider no longer holds: its files went with its node.
      if (placement === undefined || placement.lost !== null)
        return {
          workspaceId,
          state: 'missing',
          profile: labels[LABEL_PROFILE] ?? '',
          environmentDigest: '',
          // Why, so doctor can record the workspace failed with it, as a run that meets the lost node does.
          ...(placement?.lost ? { lost: placement.lost } : {}),
        };
      return nodeProvider(placement.engine!).inspect(workspaceId);
    },

    async liveUsage(workspaceId: string): Promise<LiveUsage> {
      const placement = await locate(workspaceId);
      if (placement === undefined || placement.lost !== null || placement.engine === null) return {};
      return (await nodeProvider(placement.engine).liveUsage?.(workspaceId)) ?? {};
    },

    async run(request: RunRequest): Promise<JobOutcome> {
      validateId('job', request.jobId);
      const { provider: node, placement } = await onNode(request.workspaceId);
      try {
        return await node.run(request);
      } catch (error) {
        // The node's engine went away mid-job: say so with the node's name (the job is not re-run anywhere).
        const alive = await nodeEngine(placement.engine!)
          .ping()
          .then(
            () => true,
            () => false,
          );
        if (!alive) {
          const reason = `its node ${placement.node} went away during job ${request.jobId}; its files were on that node`;
          throw new WorkspaceLostError(`swarm workspace ${request.workspaceId} is lost: ${reason}`, reason, {
            ...LOST_NEXT(request.workspaceId),
            cause: error,
          });
        }
        throw error;
      }
    },

    async read(workspaceId, path, chunkBytes) {
      return (await onNode(workspaceId)).provider.read(workspaceId, path, chunkBytes);
    },
    async write(workspaceId, path, data, writeOptions) {
      await (await onNode(workspaceId)).provider.write(workspaceId, path, data, writeOptions);
    },
    async removePath(workspaceId, path) {
      await (await onNode(workspaceId)).provider.removePath(workspaceId, path);
    },
    async list(workspaceId, path, limit) {
      return (await onNode(workspaceId)).provider.list(workspaceId, path, limit);
    },
    async stop(workspaceId, stopOptions) {
      const placement = await locate(workspaceId);
      if (placement === undefined)
        throw new EngineError('WORKSPACE_NOT_FOUND', `no swarm workspace ${workspaceId}`, { hint: 'list the workspaces', action: nextAction('ls') });
      // Nothing runs on a lost node: nothing to stop, and nothing of it remains here.
      if (placement.lost !== null || placement.engine === null) return { stopped: false, empty: true };
      return nodeProvider(placement.engine).stop(workspaceId, stopOptions);
    },

    async remove(workspaceId: string): Promise<RemovalDisposition> {
      validateId('workspace', workspaceId);
      const removed: RemovableResource[] = [];
      const retained: RemovableResource[] = [];
      const unverified: RemovableResource[] = [];
      // A manager that did not answer tells nothing of where the workspace is: the removal fails and the workspace
      // stays as it was (a silent manager's destroy once reported its storage removed, taking "no answer" for "no
      // workspace", while the service, container and volume all stayed).
      const placement = await locate(workspaceId).catch((error: unknown) => {
        throw error instanceof EngineError ? error : managerFailure('locating the workspace', error);
      });
      // The workspace container first, through its node's docker provider (which also ends its jobs); on a lost
      // node it went with the node. Its volume stays while the anchor task holds it, and goes below.
      let containerGone = true;
      if (placement?.engine != null && placement.lost === null) {
        const inner = await nodeProvider(placement.engine)
          .remove(workspaceId)
          .catch((error: unknown) => {
            // A node engine that did not answer fails the removal, as the docker provider's own does.
            if (isEngineSilence(error)) throw error;
            return null;
          });
        containerGone = inner?.removed.includes('runtime') === true;
      }
      let serviceGone: boolean;
      try {
        await manager.getService(nameOf(workspaceId)).remove();
        serviceGone = true;
      } catch (error) {
        if (isEngineSilence(error)) throw managerFailure('removing the workspace service', error);
        serviceGone = statusOf(error) === 404;
      }
      (containerGone && serviceGone ? removed : unverified).push('runtime');
      if (
        placement === undefined ||
        placement.engine === null ||
        (placement.lost !== null && /is (down|unknown|disconnected)|left the swarm/.test(placement.lost))
      ) {
        // Nothing to reach: the volume is on a node that is gone (or never made).
        (placement === undefined ? removed : unverified).push('storage');
        return { removed, retained, unverified };
      }
      // The volume is in use until the node has removed the task's container.
      const engine = nodeEngine(placement.engine);
      for (let attempt = 0; ; attempt++) {
        try {
          await engine.getVolume(nameOf(workspaceId)).remove();
          removed.push('storage');
          break;
        } catch (error) {
          if (isEngineSilence(error)) throw error;
          if (statusOf(error) === 404) {
            removed.push('storage');
            break;
          }
          if (statusOf(error) === 409 && attempt < 150) {
            await new Promise((r) => setTimeout(r, 100));
            continue;
          }
          (statusOf(error) === 409 ? retained : unverified).push('storage');
          break;
        }
      }
      return { removed, retained, unverified };
    },

    async listWorkspaces(): Promise<string[]> {
      const services = (await manager.listServices({ filters: { label: [`${LABEL_ROOT}=${rootTag}`] } })) as Array<{
        Spec?: { Labels?: Record<string, string> };
      }>;
      return services
        .map((s) => s.Spec?.Labels?.[LABEL_WORKSPACE])
        .filter((id): id is string => id !== undefined)
        .sort();
    },

    // A swarm that failed its probe (a manager that did not answer, or no usable node) is not asked again: its failed
    // checks already say nothing could be asked of it, and asking again held doctor for another bound.
    leftovers: async () => ((await probe()).result.ready ? withinMs(PROBE_TIMEOUT_MS, sweeper.list()) : []),
    removeLeftover: (leftover: Leftover) => sweeper.remove(leftover),
  };
  const sweeper = swarmLeftovers({
    rootTag,
    nodes: async () => (await probe()).nodes,
    engineOf: nodeEngine,
    serviceIds: () => provider.listWorkspaces(),
  });
  return provider;
}
