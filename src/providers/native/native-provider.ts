/**
 * The native Linux provider: bubblewrap namespaces + our seccomp filter +
 * cgroup budgets, jobs as a dedicated non-root uid. All state lives in files
 * under `options.root` (see layout.ts), so any process with the same root
 * sees the same workspaces and can stop their jobs.
 */
import { existsSync } from 'node:fs';
import { access, mkdir, readdir, rm, rmdir, chown, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EngineError, ProviderError } from '../../core/errors.js';
import { notReadyError } from '../../core/infrastructure-errors.js';
import { validateId } from '../../core/ids.js';
import { normalizeWorkspacePath, pathComponents } from '../../core/paths.js';
import { LIMIT_NAMES, type LimitName, type Policy } from '../../core/policy/policy.js';
import { MAX_JOBS_AT_ONCE } from '../../core/policy/budget-fields.js';
import { assertWithinCapacity } from '../../core/policy/host-capacity.js';
import type {
  HostCapacity,
  JobOutcome,
  Leftover,
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
import { LEGACY_JOB_UID, type JobUser } from '../../core/job-identity.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { HOST_PROFILE, resolveHostProfile, type HostProfile } from './host-profile.js';
import { acquireJobSlot, liveJobs, releaseJobMarker, removeQuietly, slotFileName, type SlotMarker } from './job-marker.js';
import { isIdleLauncher, spawnLauncher, type Launcher, type Placement } from './launch-job.js';
import { layoutOf } from './layout.js';
import { SECCOMP_FD } from './launcher-fds.js';
import { nativeLeftovers } from './leftovers.js';
import { defaultExecHelperPath, installExecHelper } from './exec-helper.js';
import { resolveHostPaths, verifyHostPaths } from './host-paths.js';
import { planBwrap } from './plan-bwrap.js';
import { planJobEntry } from './plan-job-entry.js';
import { existingProcMasks, type ProcMask } from './proc-masks.js';
import { assertRoomForJob, readStaticCapacity, storageCapacity, type StaticCapacity } from './host-capacity.js';
import { ADVISORY_CHECKS, probeHost, PROVIDER_NAME, REMEDIES, type HostEnv, type HostProbe } from './probe.js';
import { staleBaseSweeper } from './stale-bases.js';
import { ensureUnderBase, pruneMountBase } from './mount-base.js';
import { ANY_JOB_USER, planReachablePaths, type ReachablePaths } from './reachable-paths.js';
import { generatedFileData, removeRuntimeFiles, runtimeExposures } from './runtime-files.js';
import { openSafeFs } from './safe-fs.js';
import { removeTree } from '../../core/files/fd-walk.js';
import { seccompProgram } from './seccomp-program.js';
import { terminateJob } from './terminate-job.js';
import { isMountedOver, isMountPoint, makeWorkspaceFilesystem, mountWorkspaceFilesystem, unmountWorkspaceFilesystem, usedBytes, waitForLoopRelease } from './workspace-filesystem.js';
import { readMeta, writeMeta, type WorkspaceMeta } from './workspace-meta.js';

export interface NativeProviderOptions {
  /** State directory; the engine passes `$HEADSPACE_HOME/native`. */
  root: string;
  /**
   * As root, each workspace's jobs run as the uid/gid the engine allocated it
   * (WorkspaceSpec.jobUser, recorded in meta.json). This one is only the uid
   * of workspaces created before that (meta without jobUser) and the uid the
   * host probe tries bwrap as. Never 0. Default 600000 (LEGACY_JOB_UID).
   */
  jobUid?: number;
  jobGid?: number;
  /** bwrap binary; default the first of /usr/bin, /usr/local/bin, /bin. */
  bwrapPath?: string;
  /** Where files dirs are bind-mounted when `root` is not searchable by the job uid. Default /run/headspace-native/<root tag>. */
  mountBase?: string;
  /** Host PATH searched for toolchains of the `host` profile. Default process.env.PATH. */
  hostPath?: string;
  /** How long stop/abort waits for the job's cgroup to empty, in ms. Default 5000. */
  killTimeoutMs?: number;
  /**
   * Where workspace files live. `auto` (default): as root with loop devices,
   * a sparse ext4 image per workspace sized to its storage budget and
   * loop-mounted at its files directory (budget enforced, no host path in the
   * job's mountinfo); otherwise a host directory (budget measured only).
   * `host-directory`: always the latter.
   */
  storage?: 'auto' | 'host-directory';
  /** The exec shim (helper/headspace-exec.c); default dist/native/headspace-exec of this package. */
  execHelperPath?: string;
  /** HEADSPACE_HOME: a host path may not expose it (or anything containing it), nor `root` or the mount base. */
  stateHome?: string;
  /**
   * Also report (and let doctor --repair remove) the mount bases of OTHER
   * homes under the runtime directory that are stale: their home is gone or
   * holds no workspace (stale-bases.ts). The engine's provider sets it;
   * tests of one home leave it off so a shared machine's debris is not theirs.
   */
  sweepOtherHomes?: boolean;
  /** A base must be unchanged this long to count as stale (a create elsewhere may have just made it). Default 10 minutes. */
  staleBaseAgeMs?: number;
}

export const DEFAULT_JOB_UID = LEGACY_JOB_UID;
/**
 * How a native workspace runs several jobs at once (#12 item 8): each job
 * slot has its own marker (job-marker.ts) and its own child cgroup under the
 * workspace's (layout.ts jobCgroupName), so a stop, a wall clock or the sweep
 * after a job ends that job's processes alone, and its cpu, memory peak and
 * OOM kills are read from its own counters (a v1 OOM kill, even one caused by
 * the shared limit, counts in the cgroup of the process killed — measured).
 */
const NATIVE_JOBS_AT_ONCE = "jobs at once share the workspace's memory, pids and cpu budgets (its cgroup); each job runs in a child cgroup of its own, so it is stopped, timed out and measured alone";
/** stop's grace between SIGTERM and the kill when the caller names none. */
const DEFAULT_STOP_GRACE_MS = 5000;

export function createNativeProvider(options: NativeProviderOptions): Provider {
  const layout = layoutOf(options.root);
  const jobUid = options.jobUid ?? DEFAULT_JOB_UID;
  const jobGid = options.jobGid ?? jobUid;
  const killTimeoutMs = options.killTimeoutMs ?? 5000;
  // Per-instance memos: host facts do not change within one process's lifetime in practice.
  let probing: Promise<HostProbe> | undefined;
  let profiling: Promise<HostProfile> | undefined;
  let reaching: Promise<ReachablePaths> | undefined;
  let seccomp: Buffer | undefined;
  let procMasks: ProcMask[] | undefined;
  let staticCapacity: StaticCapacity | undefined;
  /** Per workspace: the exec shim's installed path, once this process has checked it (exec-helper.ts). */
  const installed = new Map<string, Promise<string>>();
  const execHelperSource = options.execHelperPath ?? defaultExecHelperPath();
  /**
   * Standby launchers: per job cgroup (the workspace's, or a job slot's
   * child when jobs run at once), one launcher already placed in it and
   * waiting for its go line (launch-job.ts). It takes the per-job cgroup
   * migration (an RCU grace-period wait, ~6 ms after idle) and the spawn off
   * the job's path. Kept only once this instance has run a job in that
   * cgroup (a one-shot CLI process never pays for one); discarded whenever
   * anything else is found in the cgroup. A slot's standby is placed in its
   * final cgroup and serves only a job that takes that slot.
   */
  const standbys = new Map<string, Launcher>();
  const ranIn = new Set<string>();

  const hostProbe = () =>
    (probing ??= probeHost({
      jobUid,
      jobGid,
      cacheFile: join(layout.cacheDir, 'probe-facts.json'),
      storage: options.storage ?? 'auto',
      execHelperPath: execHelperSource,
      ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }),
    }));
  const asRoot = process.getuid?.() === 0;
  const ownUser = { uid: process.getuid?.() ?? -1, gid: process.getgid?.() ?? -1 };
  /** Who a workspace's jobs run as and its files belong to: its own uid as root (#10 item 4), ourselves otherwise. */
  const userOf = (meta: WorkspaceMeta): JobUser => (asRoot ? (meta.jobUser ?? { uid: jobUid, gid: jobGid }) : ownUser);
  /** What must be reachable by every workspace's jobs: as root, by any job uid (the 'other' bits). */
  const reachUser = asRoot ? ANY_JOB_USER : ownUser;
  const mountBase = options.mountBase ?? join('/run/headspace-native', layout.cgroupName('').replace(/-$/, ''));
  /**
   * Where a workspace's image is mounted: under the mount base, outside
   * `root`, so the job uid reaches it without a second bind whatever
   * HEADSPACE_HOME's permissions, and a recursive delete of HEADSPACE_HOME
   * never walks into (and empties) a mounted workspace.
   */
  const imageMountPoint = (id: string) => join(mountBase, 'fs', id);
  /** headspace's own state: a host path overlapping any of these would expose other workspaces (#10 item 7). */
  const protectedDirs = [options.root, mountBase, '/run/headspace-native', ...(options.stateHome === undefined ? [] : [options.stateHome])];
  /**
   * The shim, copied into the workspace's own runtime directory (root-owned,
   * removed with the workspace), where its job uid can execute it and cannot
   * change it (exec-helper.ts). Per workspace rather than shared, so nothing
   * of it outlives the last workspace (#12 item 17) and one workspace's
   * directory never serves another's uid.
   */
  const execHelper = (id: string) => {
    let install = installed.get(id);
    if (install === undefined) {
      // The directory first, level by level with its modes (a recursive mkdir would give the mount base 0755).
      install = reachable().then(async (paths) => {
        await paths.makeRuntimeDir(id);
        return installExecHelper(execHelperSource, paths.runtimeDir(id));
      });
      installed.set(id, install);
      install.catch(() => installed.delete(id));
    }
    return install;
  };
  const filesOf = (id: string, meta: WorkspaceMeta) => (meta.storage === 'loop-ext4' ? imageMountPoint(id) : layout.filesDir(id));
  const reachable = () =>
    (reaching ??= planReachablePaths({
      root: options.root,
      runtimeDirUnderRoot: layout.runtimeDir,
      mountBase,
      ...reachUser,
    }));
  const hostProfile = () =>
    (profiling ??= resolveHostProfile({ cacheFile: join(layout.cacheDir, 'host-profile.json'), hostPath: options.hostPath ?? process.env.PATH ?? '/usr/bin:/bin', jobUser: reachUser }));

  async function readyEnv(): Promise<HostEnv> {
    const probe = await hostProbe();
    if (probe.env !== undefined && probe.env.cgroups.driver !== undefined) return probe.env;
    // Missing machinery (bwrap gone since the workspace was made) is exit 7; cgroups that cannot back the budget, exit 3.
    throw notReadyError(PROVIDER_NAME, probe.result.checks);
  }

  /** The workspace's meta, with its files in place (its image mounted again if a reboot dropped the mount). */
  async function requireMeta(id: string, files = true): Promise<WorkspaceMeta> {
    validateId('workspace', id);
    const meta = await readMeta(layout.metaPath(id));
    if (meta === undefined) throw new EngineError('WORKSPACE_NOT_FOUND', `no native workspace ${id}`, { hint: 'list workspaces with headspace list' });
    if (files) await ensureFiles(id, meta);
    return meta;
  }

  /**
   * Two stats when the image is mounted (every call that touches files pays
   * only this). Unmounted means a reboot or an interrupted removal: mount the
   * image again rather than hand out the empty directory underneath, which
   * would look like a workspace that lost its files and would not be bounded.
   */
  async function ensureFiles(id: string, meta: WorkspaceMeta): Promise<void> {
    if (meta.storage !== 'loop-ext4') return;
    const mountPoint = imageMountPoint(id);
    if (isMountedOver(mountPoint, dirname(mountPoint))) return;
    const image = layout.imagePath(id);
    if (!existsSync(image)) throw new ProviderError(`the storage image of native workspace ${id} is missing (${image})`, { hint: 'the workspace files are lost; remove the workspace' });
    if (process.getuid?.() !== 0) throw new ProviderError(`native workspace ${id} keeps its files on a loop-mounted image, which only root can mount again`, { hint: 'run headspace as root' });
    await ensureUnderBase(mountBase, 'fs', { name: id, mode: 0o711 }, options.root);
    await mountWorkspaceFilesystem(image, mountPoint);
  }

  /** What create() refuses for the plan itself, before anything is made (and before the engine records it). */
  async function checkPlan(plan: WorkspacePlan): Promise<void> {
    validateId('workspace', plan.workspaceId);
    if (plan.profile !== HOST_PROFILE) throw new EngineError('BAD_ARGUMENT', `the native provider has no profile '${plan.profile.slice(0, 40)}'`, { hint: `use --profile ${HOST_PROFILE}` });
    validatePolicy(plan.policy, 'create');
  }

  /** What this host can give a workspace (host-capacity.ts): the storage figures are read now, the rest once. */
  async function capacity(): Promise<HostCapacity> {
    return { ...(staticCapacity ??= readStaticCapacity()), storage: await storageCapacity(layout.workspacesDir, layout.imagePath) };
  }

  /** Refuses what the provider cannot do safely; returns each host path's checked real path (host-paths.ts). */
  function validatePolicy(policy: Policy, recorded?: WorkspaceMeta['resolvedHostPaths'] | 'create'): Record<string, string> {
    if (policy.network !== 'disabled') {
      throw new EngineError('POLICY_DENIED', 'the native provider does not give workspaces network access: sharing the host network would expose host loopback services', {
        hint: 'use --network disabled',
      });
    }
    return recorded === 'create' ? resolveHostPaths(policy.hostPaths, protectedDirs) : verifyHostPaths(policy.hostPaths, recorded, protectedDirs);
  }

  function placementOf(env: HostEnv, driver: CgroupDriver, cgroup: string, user: JobUser, launcherPath: string): Placement {
    return { launcherPath, procsFiles: driver.procsFiles(cgroup), ...(env.switchUser && driver.placement === 'job-uid' ? { spawnAs: user } : {}) };
  }

  /** Drops the standbys of workspace `id`: its own cgroup's and its job slots'. */
  function dropStandbys(id: string): void {
    const cgroup = layout.cgroupName(id);
    const ofWorkspace = (key: string) => key === cgroup || key.startsWith(`${cgroup}/`);
    for (const key of [...ranIn]) if (ofWorkspace(key)) ranIn.delete(key);
    for (const [key, standby] of [...standbys]) {
      if (!ofWorkspace(key)) continue;
      standbys.delete(key);
      if (standby.idle()) standby.child.kill('SIGKILL');
    }
  }

  /** Our placed, idle standby for `cgroup` if it is still in it; anything else in there is a leftover. */
  async function takeStandby(driver: CgroupDriver, cgroup: string): Promise<{ standby?: Launcher; leftovers: boolean }> {
    const standby = standbys.get(cgroup);
    standbys.delete(cgroup);
    // An unref'd standby still being placed would let node exit under our await.
    standby?.ref();
    const usable = standby !== undefined && standby.idle() && (await standby.placed) && standby.idle();
    const pids = await driver.pids(cgroup);
    const own = usable ? standby.child.pid : undefined;
    if (usable && own !== undefined && pids.includes(own)) return { standby, leftovers: pids.some((p) => p !== own) };
    if (standby?.idle()) standby.child.kill('SIGKILL');
    return { leftovers: pids.length > 0 };
  }

  /** Spawns the next job's launcher now, so it is placed by the time the job is asked for. */
  function keepStandby(id: string, env: HostEnv, driver: CgroupDriver, cgroup: string, user: JobUser, launcherPath: string): void {
    if (standbys.has(cgroup) || !existsSync(layout.metaPath(id))) return;
    const standby = spawnLauncher(placementOf(env, driver, cgroup, user, launcherPath));
    standby.unref();
    standbys.set(cgroup, standby);
    void standby.exited.then(() => {
      if (standbys.get(cgroup) === standby) standbys.delete(cgroup);
    });
  }

  /** Kills whatever is in `cgroup` (a workspace's with its job children, or one job's); true when it is empty afterwards. */
  async function killJob(driver: CgroupDriver, cgroup: string): Promise<boolean> {
    return driver.kill(cgroup, killTimeoutMs);
  }

  /** Ends one live job: its sentinel, TERM to its own cgroup, a grace, then a kill of what remains; true when emptied. */
  async function stopOne(driver: CgroupDriver, id: string, job: SlotMarker, graceMs: number): Promise<boolean> {
    // From the slot, not the marker's text: a stop never signals a cgroup that is not this workspace's.
    const cgroup = job.cgroup === undefined ? layout.cgroupName(id) : layout.jobCgroupName(id, job.slot);
    // The sentinel first, then the signals: run() reads it to report stopped=true (and honours it if it was not yet placed).
    await writeFile(layout.stopSentinelPath(id, job.jobId), `${process.pid}\n`);
    // TERM and a grace, so the job's own handler runs and its output is kept; then kill what remains.
    const ended = await terminateJob(driver, cgroup, graceMs);
    return ended || (await killJob(driver, cgroup));
  }

  const provider: Provider = {
    name: PROVIDER_NAME,

    async probe() {
      return (await hostProbe()).result;
    },

    async capabilities(): Promise<ProviderCapabilities> {
      const probe = await hostProbe();
      const ready = probe.result.ready;
      const notReady = probe.result.checks.filter((c) => !c.ok && !ADVISORY_CHECKS.has(c.name)).map((c) => `${c.name}: ${c.detail} — ${c.remedy ?? ''}`).join('; ');
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
        ? ['namespaces', 'seccomp', 'cap-drop', 'non-root-uid', 'fd-closing', ...(probe.landlock.abi > 0 ? ['landlock'] : []), probe.cgroups.driver?.kind ?? 'no-cgroups', ...(probe.storage.available ? ['loop-ext4'] : [])]
        : [];
      return { provider: PROVIDER_NAME, enforces, reasons, networkAccess: false, hostPaths: true, layers, durable: true, jobsAtOnce: MAX_JOBS_AT_ONCE };
    },

    checkPlan,
    capacity,

    async create(spec: WorkspaceSpec): Promise<WorkspaceDescriptor> {
      const id = validateId('workspace', spec.workspaceId);
      await checkPlan(spec);
      const resolvedHostPaths = validatePolicy(spec.policy, 'create');
      const env = await readyEnv();
      const user = asRoot ? validJobUser(spec.jobUser) : ownUser;
      // Again here, just before the image is made: the engine checked at its own start, and a
      // library caller may not go through the engine (the free space changes in between).
      assertWithinCapacity(spec.policy.budget, await capacity(), PROVIDER_NAME);
      await mkdir(layout.workspacesDir, { recursive: true, mode: 0o711 });
      try {
        await mkdir(layout.workspaceDir(id), { mode: 0o711 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new EngineError('WORKSPACE_EXISTS', `native workspace ${id} already exists`, { hint: 'choose another id, or remove it first' });
        throw error;
      }
      const filesDir = layout.filesDir(id);
      const mountPoint = imageMountPoint(id);
      // meta.json is written last: until then a crash leaves a folder without it (and perhaps a mount
      // under the mount base), which leftovers.ts names and removes with the image in it.
      let meta: WorkspaceMeta;
      // Only a mount this call made may be undone: a mount found in the way belongs to someone else.
      let mountedHere = false;
      try {
        let storage: Pick<WorkspaceMeta, 'storage' | 'storageBaselineBytes'> = {};
        if (env.storage.available) {
          if (isMountPoint(mountPoint)) throw new ProviderError(`something is already mounted at ${mountPoint}`, { hint: 'run headspace doctor --repair to remove leftovers of an earlier workspace' });
          mountedHere = true;
          await ensureUnderBase(mountBase, 'fs', { name: id, mode: 0o711 }, options.root);
          await makeWorkspaceFilesystem({ image: layout.imagePath(id), mountPoint, bytes: spec.policy.budget.storageBytes, owner: user, mkfsPath: env.storage.mkfsPath! });
          storage = { storage: 'loop-ext4', storageBaselineBytes: await usedBytes(mountPoint) };
        } else {
          await mkdir(filesDir, { mode: 0o700 });
          if (env.switchUser) await chown(filesDir, user.uid, user.gid);
          await (await reachable()).filesSource(id, filesDir);
        }
        await env.cgroups.driver!.prepare(layout.cgroupName(id), spec.policy.budget, user);
        await (await reachable()).makeRuntimeDir(id);
        const profile = await hostProfile();
        meta = {
          schema: 1,
          workspaceId: id,
          profile: spec.profile,
          policy: spec.policy,
          environmentDigest: profile.digest,
          createdAt: new Date().toISOString(),
          ...storage,
          ...(asRoot ? { jobUser: user } : {}),
          resolvedHostPaths,
        };
        await writeMeta(layout.metaPath(id), meta);
      } catch (error) {
        // Undo what this call made (a leftover cgroup is named by doctor); never delete an image still mounted.
        await (await reachable()).release(id).catch(() => undefined);
        await removeRuntimeFiles((await reachable()).runtimeDir(id)).catch(() => undefined);
        const unmounted = mountedHere ? await unmountWorkspaceFilesystem(mountPoint).catch(() => 'failed' as const) : 'not-ours';
        if (unmounted !== 'failed') {
          if (unmounted !== 'not-ours') await rmdir(mountPoint).catch(() => undefined);
          await removeTree(layout.workspaceDir(id)).catch(() => undefined);
          if (asRoot) await pruneMountBase(mountBase, layout.workspacesDir).catch(() => undefined);
        }
        throw error;
      }
      return { workspaceId: id, state: 'ready', profile: spec.profile, environmentDigest: meta.environmentDigest, storageBytes: 0 };
    },

    async inspect(workspaceId: string): Promise<WorkspaceDescriptor> {
      validateId('workspace', workspaceId);
      const meta = await readMeta(layout.metaPath(workspaceId));
      if (meta === undefined) return { workspaceId, state: 'missing', profile: '', environmentDigest: '' };
      let storageBytes: number | undefined;
      if (meta.storage === 'loop-ext4') {
        // statfs of the workspace's own filesystem: no walk of the tree, and it counts what the budget counts (allocated blocks).
        await ensureFiles(workspaceId, meta);
        storageBytes = Math.max(0, (await usedBytes(imageMountPoint(workspaceId))) - (meta.storageBaselineBytes ?? 0));
      } else {
        const safe = await openSafeFs(layout.filesDir(workspaceId), userOf(meta)).catch(() => undefined);
        storageBytes = safe === undefined ? undefined : await safe.measure();
      }
      const digest = await hostProfile().then((p) => p.digest, () => meta.environmentDigest);
      return { workspaceId, state: 'ready', profile: meta.profile, environmentDigest: digest, ...(storageBytes === undefined ? {} : { storageBytes }) };
    },

    async run(request: RunRequest): Promise<JobOutcome> {
      // The per-job path does only per-job work: host facts (probe, profile,
      // seccomp program) are memoised per instance, the workspace cgroup is
      // checked and repaired rather than rewritten, and small state files use
      // synchronous I/O (see cgroup-fs.ts for the measured reason).
      const id = request.workspaceId;
      const meta = await requireMeta(id);
      const filesDir = filesOf(id, meta);
      validateId('job', request.jobId);
      const resolvedHostPaths = validatePolicy(request.policy, meta.resolvedHostPaths);
      const env = await readyEnv();
      const user = userOf(meta);
      // A sparse image reserves nothing: never start a job that could fill the host's disk.
      if (meta.storage === 'loop-ext4') await assertRoomForJob(id, layout.imagePath(id));
      const driver = env.cgroups.driver!;
      const cgroup = layout.cgroupName(id);
      const cwd = normalizeWorkspacePath(request.cwd ?? '', { allowRoot: true });
      if (cwd !== '' && !(await (await openSafeFs(filesDir, user)).isDirectory(cwd))) {
        throw new EngineError('BAD_PATH', `working directory '${cwd.slice(0, 80)}' is not a directory in the workspace`, { hint: `make it first (headspace run ${id} mkdir -p ${cwd.slice(0, 80)}), or give a --cwd that exists` });
      }
      // cwd is the name text form; bwrap's --chdir takes the real name. An argument is passed as UTF-8
      // text, so a directory whose name is not valid UTF-8 cannot be named there: refused, never approximated.
      const cwdBytes = Buffer.concat(pathComponents(cwd).flatMap((part, i) => (i === 0 ? [part] : [Buffer.from('/'), part])));
      const realCwd = cwdBytes.toString('utf8');
      if (!Buffer.from(realCwd, 'utf8').equals(cwdBytes)) {
        throw new EngineError('BAD_PATH', `working directory '${cwd.slice(0, 80)}' has a name that is not valid UTF-8`, { hint: 'run from a parent directory and have the command change into it' });
      }
      const [paths, profile, helper] = await Promise.all([reachable(), hostProfile(), execHelper(id)]);
      // One list for the mounts, the generated files and the Landlock rules, so a generated file is never written yet unreadable.
      const exposures = [...profile.exposures, ...runtimeExposures()];
      const plan = planBwrap({
        // The image's mount point is under the mount base, reachable as is; a host directory may need a bind.
        filesDir: meta.storage === 'loop-ext4' ? filesDir : await paths.filesSource(id, filesDir),
        policy: request.policy,
        exposures,
        extraPath: profile.extraPath,
        cwd: realCwd,
        env: request.env,
        seccompFd: SECCOMP_FD,
        procMasks: (procMasks ??= existingProcMasks()),
        resolvedHostPaths,
      });
      const command = planJobEntry({ argv: request.argv, exposures, hostPaths: request.policy.hostPaths, budget: request.policy.budget });
      if (request.signal.aborted) return { exitCode: null, signal: null, oomKilled: false, stopped: false, aborted: true, durationMs: 0, usage: {} };

      const sentinel = layout.stopSentinelPath(id, request.jobId);
      // One job at once keeps the one-cgroup path: the job in the workspace cgroup. Several: each
      // job slot's own child cgroup, so a stop, a wall clock or the sweep after a job ends it alone.
      const atOnce = request.policy.budget.concurrency > 1;
      const slot = await acquireJobSlot(layout.workspaceDir(id), id, request.jobId, request.policy.budget.concurrency, (k) => (atOnce ? layout.jobCgroupName(id, k) : undefined));
      const jobPath = join(layout.workspaceDir(id), slotFileName(slot));
      const jobCgroup = atOnce ? layout.jobCgroupName(id, slot) : cgroup;
      const onAbort = () => void killJob(driver, jobCgroup);
      try {
        removeQuietly(sentinel);
        await driver.prepare(cgroup, request.policy.budget, user);
        if (atOnce) await driver.prepareJob(jobCgroup, request.policy.budget, user);
        // Leftovers of an earlier job (there should be none: pid namespace + die-with-parent) would skew counters.
        const taken = await takeStandby(driver, jobCgroup);
        let standby = taken.standby;
        if (taken.leftovers) {
          await killJob(driver, jobCgroup); // takes our standby with it
          standby = undefined;
        }
        const before = await driver.beginJob(jobCgroup);
        const launcher = standby ?? spawnLauncher(placementOf(env, driver, jobCgroup, user, helper));
        request.signal.addEventListener('abort', onAbort, { once: true });
        const placed = await launcher.placed;
        if (!placed) {
          const exit = await launcher.exited;
          throw new ProviderError(`the job launcher could not place itself in the workspace cgroups: ${exit.stderrTail.trim().slice(0, 300)}`, {
            hint: 'run headspace doctor; check that the cgroup directories exist and are writable',
          });
        }
        const started = performance.now();
        // A stop or abort that landed before placement found an empty cgroup: honour it now, before anything starts.
        if (request.signal.aborted || existsSync(sentinel)) await killJob(driver, jobCgroup);
        else {
          launcher.start({
            bwrapPath: env.bwrapPath,
            bwrapArgs: plan.args,
            command,
            seccomp: (seccomp ??= seccompProgram(env.arch)),
            files: generatedFileData(user),
            env: plan.env,
            ...(env.switchUser && driver.placement === 'root-then-drop' ? { dropTo: { ...user, setprivPath: env.setprivPath } } : {}),
            onOutput: request.onOutput,
          });
        }
        const exit = await launcher.exited;
        const durationMs = performance.now() - started;
        // Nothing a job starts may outlive it (setsid, double fork): empty the job's cgroup.
        if (!(await driver.isEmpty(jobCgroup))) await killJob(driver, jobCgroup);
        const report = await driver.endJob(jobCgroup, before);
        const stopped = existsSync(sentinel);
        if (ranIn.has(jobCgroup)) setImmediate(() => keepStandby(id, env, driver, jobCgroup, user, helper));
        ranIn.add(jobCgroup);
        return {
          exitCode: exit.signal === null ? exit.code : null,
          signal: exit.signal,
          oomKilled: report.oomKilled,
          stopped,
          aborted: request.signal.aborted,
          durationMs: Math.round(durationMs * 1000) / 1000,
          usage: report.usage,
        };
      } finally {
        request.signal.removeEventListener('abort', onAbort);
        removeQuietly(sentinel);
        await releaseJobMarker(jobPath, request.jobId);
      }
    },

    async read(workspaceId, path, chunkBytes) {
      const meta = await requireMeta(workspaceId);
      return (await openSafeFs(filesOf(workspaceId, meta), userOf(meta))).read(path, chunkBytes);
    },

    async write(workspaceId, path, data, writeOptions) {
      const meta = await requireMeta(workspaceId);
      await (await openSafeFs(filesOf(workspaceId, meta), userOf(meta))).write(path, data, writeOptions);
    },

    async removePath(workspaceId, path) {
      const meta = await requireMeta(workspaceId);
      await (await openSafeFs(filesOf(workspaceId, meta), userOf(meta))).remove(path);
    },

    async list(workspaceId, path, limit) {
      const meta = await requireMeta(workspaceId);
      return (await openSafeFs(filesOf(workspaceId, meta), userOf(meta))).list(path, limit);
    },

    async stop(workspaceId: string, stopOptions: StopOptions = {}): Promise<StopReport> {
      await requireMeta(workspaceId, false);
      const driver = (await hostProbe()).cgroups.driver;
      if (driver === undefined) return { stopped: false, empty: true }; // no driver: no job could have started
      const cgroup = layout.cgroupName(workspaceId);
      const live = await liveJobs(layout.workspaceDir(workspaceId));
      // Asked to end one job: only that one; the others running beside it are left alone.
      const targets = stopOptions.jobId === undefined ? live : live.filter((job) => job.jobId === stopOptions.jobId);
      if (stopOptions.jobId !== undefined && targets.length === 0 && live.length > 0) return { stopped: false, empty: true };
      if (live.length === 0) {
        // An idle standby launcher (ours or another process's) is no job: it runs nothing until told to.
        const leftovers = (await driver.pids(cgroup)).some((pid) => !isIdleLauncher(pid));
        const empty = leftovers ? await killJob(driver, cgroup) : true;
        return { stopped: leftovers, empty };
      }
      const graceMs = stopOptions.graceMs ?? DEFAULT_STOP_GRACE_MS;
      const ends = await Promise.all(targets.map((job) => stopOne(driver, workspaceId, job, graceMs)));
      return { stopped: true, empty: ends.every(Boolean) };
    },

    async remove(workspaceId: string): Promise<RemovalDisposition> {
      validateId('workspace', workspaceId);
      const removed: RemovableResource[] = [];
      const retained: RemovableResource[] = [];
      const unverified: RemovableResource[] = [];
      const driver = (await hostProbe()).cgroups.driver;
      const cgroup = layout.cgroupName(workspaceId);
      for (const live of await liveJobs(layout.workspaceDir(workspaceId))) await writeFile(layout.stopSentinelPath(workspaceId, live.jobId), `${process.pid}\n`).catch(() => undefined);
      dropStandbys(workspaceId);
      installed.delete(workspaceId);
      if (driver === undefined) unverified.push('runtime');
      else {
        let empty = false;
        let gone = false;
        // A standby another process spawns can land between the kill and the rmdir: kill again, then retry.
        for (let attempt = 0; attempt < 3 && !gone; attempt++) {
          empty = (await driver.isEmpty(cgroup)) || (await killJob(driver, cgroup));
          gone = empty && (await driver.remove(cgroup));
        }
        (gone ? removed : empty ? unverified : retained).push('runtime');
      }
      const paths = await reachable();
      await paths.release(workspaceId).catch(() => undefined);
      // meta.json goes first, so no other call mounts the image again while it is taken down;
      // a crash from here on leaves a folder without meta.json, which leftovers.ts removes.
      await rm(layout.metaPath(workspaceId), { force: true });
      const unmounted = await unmountWorkspaceFilesystem(imageMountPoint(workspaceId)).catch(() => 'failed' as const);
      // An image still mounted stays (retained): deleting it would only hide it while the loop device holds it.
      if (unmounted !== 'failed') {
        await rmdir(imageMountPoint(workspaceId)).catch(() => undefined);
        // fd-relative and iterative: Node's recursive rm failed with ENAMETOOLONG on a job's 1,500-deep tree (#10 item 8).
        await removeTree(layout.workspaceDir(workspaceId));
      }
      // A lazily unmounted image (something still held it) keeps its loop device until its last user goes.
      const held = unmounted !== 'not-mounted' && !(await waitForLoopRelease(layout.workspaceDir(workspaceId), unmounted === 'unmounted' ? 2000 : 250));
      (await exists(layout.workspaceDir(workspaceId)) ? retained : held ? unverified : removed).push('storage');
      // Its runtime directory (the shim's copy) goes with it; the mount base goes with the last workspace (#10 item 12).
      await removeRuntimeFiles(paths.runtimeDir(workspaceId)).catch(() => undefined);
      if (asRoot) await pruneMountBase(mountBase, layout.workspacesDir).catch(() => undefined);
      return { removed, retained, unverified };
    },

    async listWorkspaces(): Promise<string[]> {
      const names = await readdir(layout.workspacesDir).catch(() => [] as string[]);
      const ids: string[] = [];
      for (const name of names.sort()) if (await exists(layout.metaPath(name))) ids.push(name);
      return ids;
    },

    // doctor / doctor --repair: see leftovers.ts.
    leftovers: async () => [...(await sweeper.list()), ...(await staleBaseLeftovers())],
    async removeLeftover(leftover) {
      if (leftover.kind === 'directory' && leftover.workspaceId === null && leftover.target.startsWith(`${runtimeRoot}/{`) && options.sweepOtherHomes === true) {
        const left = await staleBases.removeAll();
        if (left.length > 0) throw new ProviderError(`${left.length} stale runtime folder(s) could not be removed: ${left.slice(0, 3).join(', ')}`, { hint: 'something still uses them (a mount, or a create in progress); run headspace doctor --repair --apply again later' });
        return;
      }
      await sweeper.remove(leftover);
      // The leftover may have been what kept the mount base: it goes with the last workspace.
      if (asRoot) await pruneMountBase(mountBase, layout.workspacesDir).catch(() => undefined);
    },
  };
  const sweeper = nativeLeftovers({ layout, mountBase, driver: async () => (await hostProbe()).cgroups.driver, killTimeoutMs });
  const runtimeRoot = dirname(mountBase);
  const staleBases = staleBaseSweeper({ runtimeRoot, minAgeMs: options.staleBaseAgeMs ?? 10 * 60_000, driver: async () => (await hostProbe()).cgroups.driver, killTimeoutMs });
  /** All stale bases as ONE leftover: a shared machine can hold hundreds, and doctor's report stays one line. */
  async function staleBaseLeftovers(): Promise<Leftover[]> {
    if (options.sweepOtherHomes !== true || !asRoot) return [];
    const stale = await staleBases.list();
    if (stale.length === 0) return [];
    const named = stale.slice(0, 3).map((b) => `${basename(b.dir)} (${b.why})`).join('; ');
    // The target reads as the folders it names (shell braces), never as the runtime directory itself.
    const target = `${runtimeRoot}/{${stale.slice(0, 3).map((b) => basename(b.dir)).join(',')}${stale.length > 3 ? ',…' : ''}}`;
    return [{ kind: 'directory', workspaceId: null, target, detail: `${stale.length} runtime folder(s) under ${runtimeRoot} of homes that are gone or hold no workspace: ${named}${stale.length > 3 ? '; …' : ''}` }];
  }
  return provider;
}

/**
 * The engine's identity for a workspace, checked before anything is made as
 * it: never root's uid or gid, and never the legacy shared uid (which would
 * put the workspace back among the old ones, sharing their limits).
 */
function validJobUser(user: JobUser): JobUser {
  const ok = (n: number) => Number.isInteger(n) && n > 0 && n !== LEGACY_JOB_UID && n < 2 ** 32 - 1;
  if (!ok(user.uid) || !ok(user.gid)) throw new ProviderError(`refusing job identity ${user.uid}:${user.gid} for a native workspace`, { hint: 'this is a headspace bug: the engine allocates job identities from 600001 up' });
  return { uid: user.uid, gid: user.gid };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
