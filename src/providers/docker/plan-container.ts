/**
 * Policy → the workspace container's create options. Pure, and tested on its
 * output (test/unit/providers/docker/), because this is the whole isolation
 * boundary on docker: whatever is not written here, the engine's defaults
 * decide, and several of those defaults are open (a bridge network, swap,
 * unlimited pids, a writable rootfs, the default capability set).
 */
import type { JobUser } from '../../core/job-identity.js';
import type { Policy } from '../../core/policy/policy.js';
import { PROC_MASK_CANDIDATES } from '../native/proc-masks.js';
import { socketBufferLimit } from '../native/socket-memory.js';

/** Labels every object this provider makes carries: how leftovers and peers find them, never by name alone. */
export const LABEL_WORKSPACE = 'dev.headspace.workspace';
/** Which provider root (HEADSPACE_HOME) made it: two homes on one engine never see each other's workspaces. */
export const LABEL_ROOT = 'dev.headspace.root';
export const LABEL_PROFILE = 'dev.headspace.profile';
export const LABEL_IMAGE_REF = 'dev.headspace.image-ref';
/** The workspace's policy as JSON: any process reads the same budget back (a container's labels never change). */
export const LABEL_POLICY = 'dev.headspace.policy';
/**
 * The job identity `uid:gid` the workspace's jobs and file execs run as. The
 * container's own user is not it (see planContainer's User), so this label is
 * where a peer process reads it back; a container without it was made before
 * jobs and the container's init were kept apart and runs no more jobs.
 */
export const LABEL_JOB_USER = 'dev.headspace.job-user';
/** The container's own processes (docker-init and its `sleep infinity`): never the job user, so a job's `kill -1` cannot reach them. */
export const CONTAINER_USER = '0:0';
/** Marks the one-shot container that gives a new volume to the job user: never a workspace. */
export const LABEL_HELPER = 'dev.headspace.helper';

/** A job's PATH inside the container (plan's setup-tool lookup searches the same). */
export const CONTAINER_PATH = '/usr/local/bin:/usr/bin:/bin';

/** Where the workspace volume is mounted inside the container; jobs start there. */
export const WORKSPACE_DIR = '/workspace';
/** The writable scratch space besides the workspace: a tmpfs, never the image's layer. */
export const TMP_DIR = '/tmp';
/** /tmp is capped so a job cannot fill memory through it beyond this share of its budget. */
const TMP_SHARE_OF_MEMORY = 0.25;

export interface VolumeMount {
  Type: 'volume';
  Source: string;
  Target: string;
  ReadOnly: false;
  VolumeOptions: { NoCopy: true };
}

/**
 * NoCopy: without it the engine copies the image's /workspace (content and
 * owner, root) into the empty volume at the first mount, undoing the chown
 * that gives the volume to the job user.
 */
function workspaceMount(volumeName: string): VolumeMount {
  return { Type: 'volume', Source: volumeName, Target: WORKSPACE_DIR, ReadOnly: false, VolumeOptions: { NoCopy: true } };
}

/**
 * Masked from the job (empty file or directory): the engine's own defaults
 * plus what the native provider masks (proc-masks.ts), because the probe's
 * proc-masks scenario read all of these inside a container with the
 * engine's defaults (host boot parameters, kernel symbols and config,
 * device and disk layout, the boot id). Setting the list replaces the
 * engine's, so its entries are repeated here; paths the kernel lacks are
 * skipped by the runtime.
 */
// The native provider's list is the one list (a path masked on one provider and not the other would be an escape on one);
// /sys/firmware is the one engine default outside /proc, which native does not mount at all.
export const MASKED_PATHS: readonly string[] = [...PROC_MASK_CANDIDATES, '/sys/firmware'];

/** Open descriptors one workspace may hold across its processes (the native provider's bound, plan-rlimits.ts). */
const OPEN_FILES_PER_WORKSPACE = 131_072;
const KIB = 1024;
const MIB = 1024 * KIB;

export interface Ulimit {
  Name: string;
  Soft: number;
  Hard: number;
}

/**
 * Resource limits set for the container, so nothing of the engine's own
 * (inherited from dockerd: NOFILE 20000+, STACK and CORE unlimited, MEMLOCK
 * 8 MiB, as the probe's inherited-limits scenario found) reaches a job.
 * The same values as the native provider's table.
 */
export function planUlimits(pidsLimit: number): Ulimit[] {
  const nofile = Math.min(4096, Math.max(64, Math.floor(OPEN_FILES_PER_WORKSPACE / Math.max(1, pidsLimit))));
  return [
    { Name: 'core', Soft: 0, Hard: 0 },
    { Name: 'nofile', Soft: Math.min(1024, nofile), Hard: nofile },
    { Name: 'stack', Soft: 8 * MIB, Hard: 64 * MIB },
    { Name: 'memlock', Soft: 64 * KIB, Hard: 64 * KIB },
    { Name: 'sigpending', Soft: 1024, Hard: 1024 },
    { Name: 'msgqueue', Soft: 800 * KIB, Hard: 800 * KIB },
    { Name: 'nproc', Soft: pidsLimit + 1, Hard: pidsLimit + 1 },
    { Name: 'rtprio', Soft: 0, Hard: 0 },
    { Name: 'rttime', Soft: 0, Hard: 0 },
    { Name: 'nice', Soft: 0, Hard: 0 },
  ];
}

export interface ContainerPlanInput {
  workspaceId: string;
  rootTag: string;
  profile: string;
  imageRef: string;
  /** The image's content digest (its id, `sha256:…`): the container is made from it, never from a tag that can move. */
  imageId: string;
  policy: Policy;
  jobUser: JobUser;
  name: string;
  volumeName: string;
  /** The job's syscall filter (seccomp-profile.ts) as JSON; absent: the engine's default profile. */
  seccompProfile?: string;
  /**
   * The engine's cgroup version ('1', '2'). On v1 the kernel charges socket
   * buffers to a container only once its memory.kmem.tcp.limit_in_bytes is
   * set (native/socket-memory.ts), so the plan sets KernelMemoryTCP; on v2
   * memory.max covers them and the field is left out (the engine discards it).
   */
  cgroupVersion?: string;
  /** The host's min(tcp_mem[0], udp_mem[0]) in pages, when the engine runs on this host: caps KernelMemoryTCP further. */
  hostNoPressurePages?: number;
}

export interface ContainerPlan {
  name: string;
  Image: string;
  Cmd: string[];
  Entrypoint: string[];
  User: string;
  WorkingDir: string;
  Env: string[];
  Labels: Record<string, string>;
  NetworkDisabled: boolean;
  AttachStdin: false;
  AttachStdout: false;
  AttachStderr: false;
  Tty: false;
  OpenStdin: false;
  HostConfig: {
    NetworkMode: 'none';
    Memory: number;
    MemorySwap: number;
    /** cgroup v1 only: socket buffers' bound (memory.kmem.tcp.limit_in_bytes), on top of Memory. */
    KernelMemoryTCP?: number;
    NanoCpus: number;
    PidsLimit: number;
    Privileged: false;
    SecurityOpt: string[];
    CapDrop: string[];
    CapAdd: string[];
    ReadonlyRootfs: true;
    Tmpfs: Record<string, string>;
    Mounts: VolumeMount[];
    Binds: string[];
    Devices: [];
    VolumesFrom: [];
    Init: true;
    AutoRemove: false;
    RestartPolicy: { Name: 'no' };
    IpcMode: 'private';
    PidMode: '';
    UsernsMode: '';
    OomKillDisable: false;
    MaskedPaths: string[];
    Ulimits: Ulimit[];
  };
}

export function labelsOf(input: Pick<ContainerPlanInput, 'workspaceId' | 'rootTag'>): Record<string, string> {
  return { [LABEL_WORKSPACE]: input.workspaceId, [LABEL_ROOT]: input.rootTag };
}

export function planContainer(input: ContainerPlanInput): ContainerPlan {
  const { budget } = input.policy;
  if (input.policy.network !== 'disabled') throw new RangeError('the docker provider plans only network-disabled workspaces');
  if (input.policy.hostPaths.length > 0) throw new RangeError('the docker provider plans no host paths');
  if (input.jobUser.uid <= 0 || input.jobUser.gid <= 0) throw new RangeError('a workspace never runs as root');
  const tmpBytes = Math.max(1024 * 1024, Math.floor(budget.memoryBytes * TMP_SHARE_OF_MEMORY));
  return {
    name: input.name,
    Image: input.imageId,
    // The container only holds the workspace's namespaces and cgroup between jobs; each job is an exec.
    // docker-init (Init) is pid 1 and reaps what a job orphans.
    // They run as root without a single capability (CapDrop ALL, no-new-privileges, read-only rootfs), never as
    // the job user: every job and file exec names the job user itself, and the end of a job and stop are one
    // `kill -1` as the job user, which must reach every process of the job and nothing of the container's own
    // (the kernel spares pid 1, not its child `sleep`, whose exit would stop the container). Root, not another
    // unprivileged uid: RLIMIT_NPROC counts a uid's processes host-wide and spares only root, and a job cannot
    // signal or trace a process of another uid.
    Entrypoint: ['sleep'],
    Cmd: ['infinity'],
    User: CONTAINER_USER,
    WorkingDir: WORKSPACE_DIR,
    Env: [`PATH=${CONTAINER_PATH}`, `HOME=${WORKSPACE_DIR}`, 'LANG=C.UTF-8'],
    Labels: {
      ...labelsOf(input),
      [LABEL_PROFILE]: input.profile,
      [LABEL_IMAGE_REF]: input.imageRef,
      [LABEL_JOB_USER]: `${input.jobUser.uid}:${input.jobUser.gid}`,
    },
    NetworkDisabled: true,
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    OpenStdin: false,
    HostConfig: {
      NetworkMode: 'none',
      // Equal: a container allowed to swap has not really been given a memory limit.
      Memory: budget.memoryBytes,
      MemorySwap: budget.memoryBytes,
      // Without it, v1 never charges socket buffers to the container: a 128 MiB job held 512 MiB of them (probe socket-memory).
      ...(input.cgroupVersion === '2' ? {} : { KernelMemoryTCP: socketBufferLimit(budget.memoryBytes, input.hostNoPressurePages) }),
      NanoCpus: Math.round(budget.cpuLimit * 1e9),
      PidsLimit: budget.pidsLimit,
      Privileged: false,
      SecurityOpt: ['no-new-privileges', ...(input.seccompProfile === undefined ? [] : [`seccomp=${input.seccompProfile}`])],
      CapDrop: ['ALL'],
      CapAdd: [],
      ReadonlyRootfs: true,
      // /dev/pts replaced by an empty read-only tmpfs: no pseudo-terminals. The pty pool is host-wide
      // (kernel.pty.max); ioctl's TIOCSTI/TIOCLINUX/TIOCSETD are refused by the seccomp profile as well.
      Tmpfs: { [TMP_DIR]: `rw,nosuid,nodev,size=${tmpBytes},mode=1777`, '/dev/pts': 'ro,nosuid,noexec,size=4k,mode=0755' },
      // The only mount: the workspace's own volume. No binds, no devices, never the engine socket.
      Mounts: [workspaceMount(input.volumeName)],
      Binds: [],
      Devices: [],
      VolumesFrom: [],
      Init: true,
      AutoRemove: false,
      RestartPolicy: { Name: 'no' },
      IpcMode: 'private',
      PidMode: '',
      UsernsMode: '',
      OomKillDisable: false,
      MaskedPaths: [...MASKED_PATHS],
      Ulimits: planUlimits(budget.pidsLimit),
    },
  };
}

/**
 * The one-shot container that gives a new workspace volume's root to the job
 * user: CAP_CHOWN alone, as root, no network, read-only rootfs, our own fixed
 * command, removed as soon as it exits. The workspace container itself never
 * holds a capability.
 */
export function planVolumeOwner(input: { name: string; imageId: string; volumeName: string; user: JobUser; labels: Record<string, string> }): {
  name: string;
  Image: string;
  Entrypoint: string[];
  Cmd: string[];
  User: string;
  Labels: Record<string, string>;
  NetworkDisabled: true;
  HostConfig: {
    NetworkMode: 'none';
    CapDrop: string[];
    CapAdd: string[];
    SecurityOpt: string[];
    ReadonlyRootfs: true;
    Privileged: false;
    Mounts: VolumeMount[];
    Memory: number;
    MemorySwap: number;
    PidsLimit: number;
  };
} {
  if (input.user.uid <= 0 || input.user.gid <= 0) throw new RangeError('a workspace volume is never given to root');
  return {
    name: input.name,
    Image: input.imageId,
    Entrypoint: ['chown'],
    Cmd: [`${input.user.uid}:${input.user.gid}`, WORKSPACE_DIR],
    User: '0:0',
    Labels: { ...input.labels, [LABEL_HELPER]: 'volume-owner' },
    NetworkDisabled: true,
    HostConfig: {
      NetworkMode: 'none',
      CapDrop: ['ALL'],
      CapAdd: ['CHOWN'],
      SecurityOpt: ['no-new-privileges'],
      ReadonlyRootfs: true,
      Privileged: false,
      Mounts: [workspaceMount(input.volumeName)],
      Memory: 64 * 1024 * 1024,
      MemorySwap: 64 * 1024 * 1024,
      PidsLimit: 8,
    },
  };
}
