/**
 * The native Linux provider: bubblewrap namespaces + our seccomp filter +
 * cgroup budgets, jobs as a dedicated non-root uid. All state lives in files
 * under `options.root` (see layout.ts), so any process with the same root
 * sees the same workspaces and can stop their jobs.
 *
 * This file only composes the parts (native-parts.ts): what the host offers
 * (host-facts.ts) and declares (native-capabilities.ts), who jobs run as
 * (job-users.ts), where workspaces live (workspace-storage.ts), their
 * cgroups (workspace-cgroups.ts over the cgroup driver contract), the
 * standby launchers (standby-pool.ts), and the verbs' bodies
 * (create-native-workspace.ts, run-native-job.ts, remove-native-workspace.ts).
 */
import { dirname, join } from 'node:path';
import { validateId } from '../../core/ids.js';
import { LEGACY_JOB_UID } from '../../core/job-identity.js';
import { findNativeTools } from './find-tools.js';
import type { Provider, StopOptions } from '../../core/provider.js';
import { checkNativePlan } from './check-native-policy.js';
import { createNativeWorkspace } from './create-native-workspace.js';
import { defaultExecHelperPath, execHelperInstaller } from './exec-helper.js';
import { hostFacts } from './host-facts.js';
import { jobUsers } from './job-users.js';
import { layoutOf } from './layout.js';
import { nativeLeftovers } from './leftovers.js';
import { nativeCapabilities } from './native-capabilities.js';
import { nativeSnapshots } from './native-snapshots.js';
import type { NativeProviderOptions } from './native-options.js';
import type { NativeParts } from './native-parts.js';
import { PROVIDER_NAME } from './probe.js';
import { removeNativeWorkspace } from './remove-native-workspace.js';
import { runNativeJob } from './run-native-job.js';
import { snapshotLeftovers } from './snapshot-leftovers.js';
import { staleBaseLeftovers, staleBaseSweeper } from './stale-bases.js';
import { standbyPool } from './standby-pool.js';
import { poolSizeFrom } from './image-pool.js';
import { workspaceCgroups } from './workspace-cgroups.js';
import { workspaceStorage } from './workspace-storage.js';
import { readMeta } from './workspace-meta.js';

export type { NativeProviderOptions } from './native-options.js';

export const DEFAULT_JOB_UID = LEGACY_JOB_UID;

export function createNativeProvider(options: NativeProviderOptions): Provider {
  const layout = layoutOf(options.root);
  const jobUid = options.jobUid ?? DEFAULT_JOB_UID;
  const killTimeoutMs = options.killTimeoutMs ?? 5000;
  const users = jobUsers({ uid: jobUid, gid: options.jobGid ?? jobUid });
  const mountBase = options.mountBase ?? join('/run/headspace-native', layout.cgroupName('').replace(/-$/, ''));
  const execHelperSource = options.execHelperPath ?? defaultExecHelperPath();
  const host = hostFacts(options, layout, users, mountBase, execHelperSource);
  const parts: NativeParts = {
    layout,
    mountBase,
    protectedDirs: [options.root, mountBase, '/run/headspace-native', ...(options.stateHome === undefined ? [] : [options.stateHome])],
    users,
    host,
    storage: workspaceStorage({
      layout,
      root: options.root,
      mountBase,
      users,
      reachable: host.reachable,
      helperPath: execHelperSource,
      poolSize: options.poolSize ?? poolSizeFrom(process.env.HEADSPACE_POOL_SIZE),
    }),
    cgroups: workspaceCgroups(layout, killTimeoutMs),
    standbys: standbyPool(),
    execHelper: execHelperInstaller(execHelperSource, host.reachable),
  };
  const { storage } = parts;
  // doctor / doctor --repair: this home's leftovers (leftovers.ts), and other homes' stale runtime folders (stale-bases.ts).
  const sweeper = nativeLeftovers({
    layout,
    mountBase,
    driver: host.driver,
    killTimeoutMs,
    ...(options.stateHome === undefined ? {} : { stateHome: options.stateHome }),
  });
  const snapshotDebris = snapshotLeftovers(layout, storage.layered);
  const runtimeRoot = dirname(mountBase);
  const staleBases = staleBaseLeftovers(
    staleBaseSweeper({ runtimeRoot, minAgeMs: options.staleBaseAgeMs ?? 10 * 60_000, driver: host.driver, killTimeoutMs }),
    runtimeRoot,
    {
      sweepOtherHomes: options.sweepOtherHomes === true,
      asRoot: users.asRoot,
    },
  );

  return {
    name: PROVIDER_NAME,
    probe: async () => (await host.probe()).result,
    capabilities: async () => nativeCapabilities(await host.probe()),
    checkPlan: async (plan) => checkNativePlan(plan, parts.protectedDirs),
    capacity: () => host.capacity(),
    create: (spec) => createNativeWorkspace(parts, spec),

    async inspect(workspaceId) {
      validateId('workspace', workspaceId);
      const meta = await readMeta(layout.metaPath(workspaceId));
      if (meta === undefined) return { workspaceId, state: 'missing', profile: '', environmentDigest: '' };
      const storageBytes = await storage.measure(workspaceId, meta);
      const digest = await host.profile().then(
        (p) => p.digest,
        () => meta.environmentDigest,
      );
      return { workspaceId, state: 'ready', profile: meta.profile, environmentDigest: digest, ...(storageBytes === undefined ? {} : { storageBytes }) };
    },

    async liveUsage(workspaceId) {
      validateId('workspace', workspaceId);
      const driver = await host.driver();
      if (driver === undefined) return {};
      const now = await driver.usage(layout.cgroupName(workspaceId));
      return {
        ...(now.cpuNs === undefined ? {} : { cpuSeconds: now.cpuNs / 1e9 }),
        ...(now.memoryBytes === undefined ? {} : { memoryBytes: now.memoryBytes }),
        ...(now.pids === undefined ? {} : { pids: now.pids }),
      };
    },

    // Only the host profile exists (core/policy/profiles.ts); its PATH is the same for every workspace.
    findTools: async (_profile, names) => findNativeTools(await host.profile(), names),

    run: (request) => runNativeJob(parts, request),
    read: async (workspaceId, path, chunkBytes) => (await storage.files(workspaceId)).read(path, chunkBytes),
    write: async (workspaceId, path, data, writeOptions) => (await storage.files(workspaceId)).write(path, data, writeOptions),
    removePath: async (workspaceId, path) => (await storage.files(workspaceId)).remove(path),
    list: async (workspaceId, path, limit) => (await storage.files(workspaceId)).list(path, limit),

    async stop(workspaceId: string, stopOptions: StopOptions = {}) {
      await storage.requireMeta(workspaceId, false);
      const driver = await host.driver();
      if (driver === undefined) return { stopped: false, empty: true }; // no driver: no job could have started
      return parts.cgroups.stop(driver, workspaceId, stopOptions);
    },

    // Present whatever the host; capabilities list `snapshots` only where workspaces get the layered filesystem (#14).
    snapshots: nativeSnapshots(parts),
    remove: (workspaceId) => removeNativeWorkspace(parts, workspaceId),
    listWorkspaces: () => storage.list(),

    leftovers: async () => [...(await sweeper.list()), ...(await snapshotDebris.list()), ...(await staleBases.list())],
    async removeLeftover(leftover) {
      if (staleBases.owns(leftover)) return staleBases.remove();
      if (await snapshotDebris.remove(leftover)) return;
      const removed = await sweeper.remove(leftover);
      // The leftover may have been what kept the mount base: it goes with the last workspace.
      await storage.prune();
      return removed;
    },
  };
}
