/**
 * The provider contract: the one seam between the engine and a backend.
 *
 * Everything crossing it is plain data. Providers import only from `core/`;
 * the engine never imports a provider. Every provider binds the conformance
 * suite in `test/conformance/provider-suite.ts` and may not override it.
 *
 * Error rules at the seam:
 *  - a failing *command* is a JobOutcome (exitCode ≠ 0), never a throw;
 *  - a broken *backend* throws ProviderError (exit 7);
 *  - a bad request (unknown workspace, bad path, not a regular file) throws
 *    EngineError with a user_error code (exit 1).
 */
import type { JobUser } from './job-identity.js';
import type { LimitName, Policy } from './policy/policy.js';
import type { SnapshotOps } from './snapshots/snapshot-ops.js';

export interface ProbeCheck {
  /** Short stable name, e.g. `bubblewrap`, `user-namespaces`, `cgroup-memory`. */
  name: string;
  ok: boolean;
  /** What was found, in one line. */
  detail: string;
  /** The one-line remedy when not ok. */
  remedy?: string;
  /**
   * The limits this check backs (a cgroup controller backs memory): when it
   * fails, the host cannot back a policy with them (exit 3). A failed check
   * without limits is missing or broken machinery (exit 7).
   */
  limits?: LimitName[];
  /** A weaker mode, not an unusable provider: failing never makes the probe not ready. */
  advisory?: boolean;
}

export interface ProbeResult {
  provider: string;
  /** True when the provider can create and run workspaces at all. */
  ready: boolean;
  checks: ProbeCheck[];
  /**
   * Set when nothing on this host points the provider anywhere (no engine
   * address given and none at the default place; no swarm manager named):
   * not a fault to look at, only a backend not set up. doctor says so in one
   * line instead of counting it (a new user's clean home reported "5 things
   * to look at", docker and swarm he had never asked for).
   */
  unconfigured?: true;
}

export interface ProviderCapabilities {
  provider: string;
  /**
   * For each limit: can this provider make the host really apply it?
   * The engine itself enforces wall_clock, output_bytes and concurrency, so
   * a provider may say false for those.
   */
  enforces: Record<LimitName, boolean>;
  /** Why each unenforceable limit cannot be enforced, with its remedy. */
  reasons: Partial<Record<LimitName, string>>;
  /** Can the provider give a workspace network access when asked? */
  networkAccess: boolean;
  /** Can the provider expose host paths read-only when asked? */
  hostPaths: boolean;
  /** Isolation layers in force, e.g. `namespaces`, `seccomp`, `landlock`, `cgroup-v1`. */
  layers: string[];
  /** Do workspaces outlive the process that created them? */
  durable: boolean;
  /**
   * True for a provider that simulates its workspaces (the fake): the limits
   * it `enforces` hold only inside its simulation, so they are labelled
   * `simulated`, never `enforced`, and create does not refuse them (#12 item 6).
   */
  simulated?: boolean;
  /**
   * Jobs this provider can run at once in one workspace, sharing its budgets
   * (#12 item 8); absent means 1. Create refuses (POLICY_DENIED, exit 3) a
   * policy whose concurrency is above it; the engine itself counts the jobs.
   */
  jobsAtOnce?: number;
  /**
   * Optional features beyond the core contract: `snapshots` (the provider
   * has `snapshots`, #14), `network-allowlist` (#18). A verb that needs one
   * refuses on a provider without it (POLICY_DENIED, exit 3, naming it).
   */
  features?: ProviderFeature[];
}

export type ProviderFeature = 'snapshots' | 'network-allowlist';

/** Host facts the budgets are checked against at create (second red team, item 2). */
export interface HostCapacity {
  /** MemTotal, in bytes. */
  memoryBytes?: number;
  /** CPUs online. */
  cpus?: number;
  /** min(kernel.pid_max, kernel.threads-max): tasks the whole host may have at once. */
  tasks?: number;
  /**
   * The filesystem that holds workspace storage, read at the call (it
   * changes): its free and total bytes, and `committedBytes`, the part of
   * the free space existing workspaces may still fill (their budgets not yet
   * allocated: sparse images reserve nothing).
   */
  storage?: { path: string; freeBytes: number; totalBytes: number; committedBytes: number };
}

/** What a workspace is asked to be, before the engine has recorded it. */
export interface WorkspacePlan {
  workspaceId: string;
  policy: Policy;
  /** Runtime profile name, e.g. `host`. */
  profile: string;
}

export interface WorkspaceSpec extends WorkspacePlan {
  /**
   * The host identity this workspace's jobs run as, allocated by the engine's
   * store (core/job-identity.ts): no other workspace that is not destroyed
   * has it, so one workspace's jobs cannot exhaust another's per-user kernel
   * limits (inotify, message queues, pipe pages). A provider that switches
   * users runs every job of the workspace as it and owns the workspace's
   * files by it, for the workspace's whole life; one that runs jobs as its
   * caller or simulates them may only record it.
   */
  jobUser: JobUser;
}

export interface WorkspaceDescriptor {
  workspaceId: string;
  /** The provider's own view: `ready`, or `missing` when it no longer knows it. */
  state: 'ready' | 'missing';
  profile: string;
  /** `sha256:<hex>` of what the job runs on; pins provenance. */
  environmentDigest: string;
  /** Bytes of workspace files, when the provider can measure them. */
  storageBytes?: number;
  /** With `missing`: the provider lost what held the workspace, and why (a swarm node gone, its files with it, #22). */
  lost?: string;
}

/** What a workspace's running jobs use right now (watch samples it); a figure the provider cannot read is absent. */
export interface LiveUsage {
  /** CPU seconds the workspace's processes have used so far (a running total, not a rate). */
  cpuSeconds?: number;
  /** Memory charged to the workspace now, in bytes. */
  memoryBytes?: number;
  /** Processes and threads in the workspace now. */
  pids?: number;
}

export type OutputStream = 'stdout' | 'stderr';

export interface RunRequest {
  workspaceId: string;
  jobId: string;
  /** argv[0] is resolved on the workspace's PATH; never run through a shell by the provider. */
  argv: string[];
  /** The job's whole environment beyond the provider's own minimal defaults (PATH, HOME, …). */
  env: Record<string, string>;
  /** Workspace-relative working directory; default the workspace root. */
  cwd?: string;
  policy: Policy;
  /** Called for each chunk of output, in order. The engine counts, caps and stores. */
  onOutput: (stream: OutputStream, chunk: Buffer) => void;
  /**
   * Present exactly when the policy's network is an allow-list (#18): the
   * engine's egress path for this job. A provider that lists
   * `network-allowlist` must refuse (POLICY_DENIED) an allow-list policy
   * without it, never run the job with a network it cannot route.
   */
  egress?: EgressChannel;
  /**
   * Aborted by the engine for its own limits (wall clock, output budget).
   * The provider ends the job's whole process tree promptly and returns.
   */
  signal: AbortSignal;
}

/**
 * The engine's egress proxy as a provider reaches it (core/network/).
 * `socketPath`: the host unix socket a real provider exposes at
 * SANDBOX_EGRESS_SOCKET; null for a simulating provider, which asks
 * `simulate` instead. Either way the engine records every decision.
 */
export interface EgressChannel {
  socketPath: string | null;
  /**
   * Secrets at egress (#18 item 3): the host path of the trust bundle (the system's roots and the
   * workspace CA's certificate, never its key) that a real provider binds read-only at SANDBOX_CA_BUNDLE
   * and names in the job's TLS variables (egress-sandbox.ts caBundleEnv). Absent: the job has no secrets.
   */
  caBundlePath?: string;
  /**
   * The decision the proxy takes for HOST:PORT, recorded as evidence; a simulation's only way out.
   * `sent`: a header value the simulated request carries, and whether it goes over TLS, so the
   * secrets decision (substituted, or blocked) is simulated too.
   */
  simulate(host: string, port: number, sent?: { header: string; tls: boolean }): Promise<{ allowed: boolean; reason?: string; substituted?: string[] }>;
}

export interface JobUsage {
  cpuSeconds?: number;
  maxMemoryBytes?: number;
  /**
   * Whose peak `maxMemoryBytes` is: `job` when it is this job's own, `workspace`
   * when it is the peak of the workspace's cgroup, which other jobs shared
   * while this one ran (a policy with concurrency above 1).
   */
  memoryScope?: 'job' | 'workspace';
  peakPids?: number;
}

/**
 * Raw facts about how a job ended. The engine, not the provider, decides the
 * status from these (cancelled > timeout > resource_exhausted > exit code).
 */
export interface JobOutcome {
  /** Exit status when the process exited on its own; null when killed by a signal. */
  exitCode: number | null;
  /** Terminating signal name, if any, e.g. `SIGKILL`. */
  signal: string | null;
  /** The kernel's own OOM counter says the job was killed for memory. Never guessed from 137. */
  oomKilled: boolean;
  /** Another caller asked the provider to stop this workspace's job while it ran. */
  stopped: boolean;
  /** The request's AbortSignal fired before the job ended. */
  aborted: boolean;
  /** Virtual or real wall time the provider measured, in milliseconds. */
  durationMs: number;
  usage: JobUsage;
}

export interface StopOptions {
  /**
   * How long the job may take to end after SIGTERM (or the provider's
   * equivalent) before what remains is killed, in ms. A TERM handler runs
   * within it and its output is kept (#12 item 3).
   */
  graceMs?: number;
  /**
   * End only this job and leave the workspace's other jobs running; without
   * it, every job of the workspace is ended. A job that is not running
   * there is not stopped (stopped=false).
   */
  jobId?: string;
}

export interface StopReport {
  /** True when a job was running and has been ended. */
  stopped: boolean;
  /** True when nothing of the job remains (cgroup empty, process gone). */
  empty: boolean;
}

export type RemovableResource = 'runtime' | 'storage';

/** {runtime, storage} partitioned: each is in exactly one list. */
export interface RemovalDisposition {
  removed: RemovableResource[];
  retained: RemovableResource[];
  unverified: RemovableResource[];
  /**
   * OPTIONAL. Unreachable by any job now, its deletion journalled and running
   * in the background (the native provider's storage, #20); `doctor` names an
   * interrupted one and `doctor --repair --apply` finishes it. Never counted
   * as removed: it is not, yet.
   */
  reclaiming?: RemovableResource[];
}

export interface ReadStream {
  size: number;
  /**
   * Bytes the file occupies on disk, when the provider can tell (a sparse
   * file's is far below `size`): export checks the host's free space with it.
   */
  allocatedBytes?: number;
  /** Chunks of at most `chunkBytes` bytes, in order. */
  chunks: AsyncIterable<Buffer>;
  /** Releases the underlying handle; safe to call twice. */
  close(): Promise<void>;
}

export interface WriteOptions {
  /** Hex sha256 the bytes must have; on mismatch nothing lands. */
  expectedSha256: string;
  overwrite: boolean;
  /** Permission bits the file gets (settle carries a sealed file's mode); absent: the provider's default (0644). */
  mode?: number;
}

export interface FileEntry {
  /** Workspace-relative path with `/` separators. */
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
}

/**
 * Something a provider made that outlived the operation that made it: found
 * by `leftovers()`, removed one at a time by `removeLeftover()`. Only
 * mechanical debris qualifies (a cgroup, process, mount or temporary file of
 * a workspace that is gone or idle); a workspace's own files never do.
 *
 * `workspaceId` is the workspace it belongs to (null when it cannot be
 * told); the engine uses it to leave alone anything of a workspace whose
 * job or operation is still alive in another process.
 */
export interface Leftover {
  kind: 'cgroup' | 'process' | 'mount' | 'file' | 'directory';
  workspaceId: string | null;
  /** A host path or a pid: what `removeLeftover` acts on. */
  target: string;
  /** One line: what it is and why it is a leftover. */
  detail: string;
}

export interface Provider {
  readonly name: string;
  /** Checks the host; cheap enough to run on every create and doctor. */
  probe(): Promise<ProbeResult>;
  capabilities(): Promise<ProviderCapabilities>;
  /**
   * OPTIONAL. Refuses, making nothing, a plan that create() would refuse for
   * the plan itself: a policy the provider cannot give (POLICY_DENIED), a host
   * path that is missing or reserved (BAD_ARGUMENT). The engine calls it
   * before it records the workspace, so such a refusal leaves no record and
   * the id stays free. create() still checks: things change in between.
   */
  checkPlan?(plan: WorkspacePlan): Promise<void>;
  /**
   * OPTIONAL. What this host can give one workspace, measured now; create
   * refuses, before it records anything, a budget past it
   * (core/policy/host-capacity.ts). Without it, or with a field absent (the
   * provider cannot tell, or runs nothing real), that budget is held to its
   * static range only. Called at create only, never per job.
   */
  capacity?(): Promise<HostCapacity>;
  /** Makes the workspace. A duplicate id throws WORKSPACE_EXISTS. */
  create(spec: WorkspaceSpec): Promise<WorkspaceDescriptor>;
  /** The provider's view; `missing` (never a throw) when it no longer knows the id. */
  inspect(workspaceId: string): Promise<WorkspaceDescriptor>;
  /**
   * OPTIONAL (watch). What the workspace uses now, read cheaply (a few
   * counters): called once per watch sample. Without it, a sample's cpu,
   * memory and pids are unknown.
   */
  liveUsage?(workspaceId: string): Promise<LiveUsage>;
  /**
   * OPTIONAL (plan, #17). Where each command name resolves on a job's PATH
   * in `profile`, as a path inside the job's view, or null when no
   * executable of that name is there. Read-only and needs no workspace, so
   * plan can tell a setup command's tool is missing before prepare makes
   * anything. A provider without it cannot tell (plan says so).
   */
  findTools?(profile: string, names: readonly string[]): Promise<Record<string, string | null>>;
  /** OPTIONAL: present exactly when capabilities().features lists `snapshots` (core/snapshots/snapshot-ops.ts). */
  readonly snapshots?: SnapshotOps;
  run(request: RunRequest): Promise<JobOutcome>;
  /** Reads a regular file; symlinks and directories are refused (BAD_PATH / NOT_A_REGULAR_FILE). */
  read(workspaceId: string, path: string, chunkBytes?: number): Promise<ReadStream>;
  write(workspaceId: string, path: string, data: Buffer, options: WriteOptions): Promise<void>;
  /**
   * Removes the file, symlink or whole directory tree at `path` (never the
   * workspace root, never following a link); a missing path is no error.
   * `put --overwrite` uses it to make a destination hold exactly its source.
   */
  removePath(workspaceId: string, path: string): Promise<void>;
  /**
   * Lists every entry under a directory, recursively, sorted by path, at most
   * `limit` of them (`truncated` says when more exist). Never follows
   * symlinks: a link is listed as `symlink`. A missing directory throws
   * FILE_NOT_FOUND; a file path throws NOT_A_REGULAR_FILE.
   */
  list(workspaceId: string, path: string, limit: number): Promise<{ entries: FileEntry[]; truncated: boolean }>;
  /**
   * Ends the workspace's running jobs (or only `options.jobId`), from any process: SIGTERM (or
   * its equivalent) first, a grace of `options.graceMs` (default 5 s), then a
   * kill of what remains. Returns only when nothing of them remains (or reports
   * `empty: false`); a job that ends this way reports `stopped: true` from
   * its own run(), the others never do. Idle → stopped=false.
   */
  stop(workspaceId: string, options?: StopOptions): Promise<StopReport>;
  remove(workspaceId: string): Promise<RemovalDisposition>;
  /** Every workspace id the provider currently holds (for reconciliation). */
  listWorkspaces(): Promise<string[]>;
  /**
   * OPTIONAL (doctor and doctor --repair). Lists what this provider left
   * behind: read-only, cheap enough for every doctor run. A provider without
   * it leaves nothing the engine cannot see itself.
   */
  leftovers?(): Promise<Leftover[]>;
  /**
   * OPTIONAL, with `leftovers`. Removes one leftover it returned (killing
   * before removing, for a cgroup); idempotent, and it re-checks that the
   * thing is still a leftover before acting: false when it no longer is (an
   * operation finished it since the listing) and was kept, so doctor does not
   * report a removal it did not make. Throws ProviderError when it cannot.
   */
  removeLeftover?(leftover: Leftover): Promise<boolean | void>;
}
