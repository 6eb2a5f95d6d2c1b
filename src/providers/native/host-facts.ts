/**
 * What this host offers the native provider, read once per provider
 * instance: the probe (bubblewrap, cgroups and their driver, storage,
 * Landlock), the host profile, the reachable-path plan, the seccomp program,
 * the /proc masks and the fixed capacity figures. Host facts do not change
 * within one process's lifetime in practice, so each is memoised and the
 * per-job path pays for none of them.
 */
import { join } from 'node:path';
import { notReadyError } from '../../core/infrastructure-errors.js';
import type { HostCapacity } from '../../core/provider.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { readStaticCapacity, storageCapacity, type StaticCapacity } from './host-capacity.js';
import { resolveHostProfile, type HostProfile } from './host-profile.js';
import type { JobUsers } from './job-users.js';
import type { Layout } from './layout.js';
import type { NativeProviderOptions } from './native-options.js';
import { probeHost, PROVIDER_NAME, type HostEnv, type HostProbe } from './probe.js';
import { existingProcMasks, type ProcMask } from './proc-masks.js';
import { planReachablePaths, type ReachablePaths } from './reachable-paths.js';
import type { SeccompArch } from './syscall-tables.js';
import { seccompProgram } from './seccomp-program.js';

export interface HostFacts {
  probe(): Promise<HostProbe>;
  /** The probe's environment when jobs can run; otherwise the not-ready error (exit 7 for missing machinery, 3 for cgroups that cannot back the budget). */
  readyEnv(): Promise<HostEnv>;
  /** The cgroup driver the probe chose (choose-cgroup-driver.ts), or none: then no job could have started. */
  driver(): Promise<CgroupDriver | undefined>;
  profile(): Promise<HostProfile>;
  reachable(): Promise<ReachablePaths>;
  seccomp(arch: SeccompArch): Buffer;
  procMasks(): ProcMask[];
  /** What this host can give a workspace (host-capacity.ts): the storage figures are read now, the rest once. */
  capacity(): Promise<HostCapacity>;
}

export function hostFacts(options: NativeProviderOptions, layout: Layout, users: JobUsers, mountBase: string, execHelperPath: string): HostFacts {
  let probing: Promise<HostProbe> | undefined;
  let profiling: Promise<HostProfile> | undefined;
  let reaching: Promise<ReachablePaths> | undefined;
  let seccomp: Buffer | undefined;
  let procMasks: ProcMask[] | undefined;
  let staticCapacity: StaticCapacity | undefined;
  const probe = () =>
    (probing ??= probeHost({
      jobUid: users.legacy.uid,
      jobGid: users.legacy.gid,
      cacheFile: join(layout.cacheDir, 'probe-facts.json'),
      storage: options.storage ?? 'auto',
      execHelperPath,
      ...(options.bwrapPath === undefined ? {} : { bwrapPath: options.bwrapPath }),
    }));
  return {
    probe,
    async readyEnv() {
      const facts = await probe();
      if (facts.env !== undefined && facts.env.cgroups.driver !== undefined) return facts.env;
      throw notReadyError(PROVIDER_NAME, facts.result.checks);
    },
    driver: async () => (await probe()).cgroups.driver,
    profile: () =>
      (profiling ??= resolveHostProfile({
        cacheFile: join(layout.cacheDir, 'host-profile.json'),
        hostPath: options.hostPath ?? process.env.PATH ?? '/usr/bin:/bin',
        jobUser: users.reach,
      })),
    reachable: () => (reaching ??= planReachablePaths({ root: options.root, runtimeDirUnderRoot: layout.runtimeDir, mountBase, ...users.reach })),
    seccomp: (arch) => (seccomp ??= seccompProgram(arch)),
    procMasks: () => (procMasks ??= existingProcMasks()),
    capacity: async () => ({ ...(staticCapacity ??= readStaticCapacity()), storage: await storageCapacity(layout.workspacesDir, layout.imagePath) }),
  };
}
