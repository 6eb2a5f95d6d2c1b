/** What a caller may set on the native provider (createNativeProvider). */
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
  /**
   * How many formatted workspace images to keep ready for create
   * (image-pool.ts, under `<root>/pool`); 0 turns the pool off. Default
   * HEADSPACE_POOL_SIZE, else 2.
   */
  poolSize?: number;
  /** A base must be unchanged this long to count as stale (a create elsewhere may have just made it). Default 10 minutes. */
  staleBaseAgeMs?: number;
}
