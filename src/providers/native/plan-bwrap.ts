/**
 * Pure planner: policy + workspace + host exposure → the bwrap argument list
 * (sent over `--args FD`, so no host path shows in the sandbox's
 * /proc/1/cmdline), the command line, and the job's whole environment.
 *
 * Ordering matters and is pinned by tests:
 *  - `--unshare-user` is explicit because `--disable-userns` needs it (bwrap 0.8);
 *  - `--cap-drop ALL` always: root running bwrap keeps CAP_SYS_ADMIN otherwise
 *    and can remount a read-only bind writable (a reproduced escape);
 *  - `--remount-ro /` comes last, or the sandbox root stays writable.
 *
 * No bind's source names a host path of headspace's own (red team 2, item
 * 3): the job's /proc/self/mountinfo shows each bind's root, so the
 * generated /etc files are written into the sandbox from descriptors
 * (`--file`) and the exec shim is run through one (launcher-fds.ts).
 */
import { EngineError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import type { Policy } from '../../core/policy/policy.js';
import { JOB_DEVICES } from './plan-job-entry.js';
import { caBundleEnv, egressEnv, SANDBOX_CA_BUNDLE, SANDBOX_EGRESS_SOCKET } from '../../core/network/egress-sandbox.js';
import type { ProcMask } from './proc-masks.js';

/** One read-only view of a host path (or of generated data) inside the sandbox. */
export type Exposure =
  | { kind: 'ro-bind'; src: string; dest: string }
  /** Bound only when present on the host (e.g. /lib64 on aarch64 does not exist). */
  | { kind: 'ro-bind-try'; src: string; dest: string }
  | { kind: 'symlink'; target: string; dest: string }
  /** A read-only file bwrap writes into the sandbox's root from descriptor `fd` (no mount, so no host path in mountinfo). */
  | { kind: 'data'; fd: number; dest: string };

export interface BwrapPlanInput {
  /** Host directory bound read-write at /workspace. */
  filesDir: string;
  policy: Policy;
  /** The runtime profile's read-only system view, in mount order. */
  exposures: readonly Exposure[];
  /** Extra directories put in front of the default PATH (toolchains outside /usr). */
  extraPath?: readonly string[];
  /** Workspace-relative working directory, already normalised ('' = root). */
  cwd: string;
  /** request.env: the job's environment beyond the defaults; may override them. */
  env: Readonly<Record<string, string>>;
  /** File descriptor number bwrap reads the seccomp program from. */
  seccompFd: number;
  /** /proc entries to cover (proc-masks.ts): files with /dev/null, directories with an empty tmpfs. */
  procMasks: readonly ProcMask[];
  /**
   * Each of policy.hostPaths → the real path it resolved to at create and
   * still resolves to (host-paths.ts). The resolved path is what is bound,
   * so bwrap never follows a link a host path may be or contain (#10 item 7).
   */
  resolvedHostPaths: Readonly<Record<string, string>>;
  /**
   * Host path of the engine's egress socket (#18), required exactly when
   * the policy's network is an allow-list: bound at SANDBOX_EGRESS_SOCKET,
   * and the proxy variables set. The network namespace stays the job's own.
   */
  egressSocket?: string;
  /** Secrets at egress (#18 item 3): the host trust bundle bound read-only at SANDBOX_CA_BUNDLE and named by the TLS variables. */
  caBundle?: string;
}

export interface BwrapPlan {
  /** Arguments for `--args FD` (NUL-joined by the caller). */
  args: string[];
  /** The whole environment handed to bwrap and so to the job; nothing of the host's. */
  env: Record<string, string>;
}

export const SANDBOX_WORKSPACE = '/workspace';
export const SANDBOX_HOSTNAME = 'headspace';
export const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Destinations the sandbox owns; a host path may not be mounted over or under them. */
export const RESERVED_DESTINATIONS = ['/', '/workspace', '/tmp', '/proc', '/dev', '/usr', '/etc', '/bin', '/lib', '/lib64', '/sbin'] as const;

export function planEnv(env: Readonly<Record<string, string>>, extraPath: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {
    PATH: [...extraPath, DEFAULT_PATH].join(':'),
    HOME: '/tmp',
    TMPDIR: '/tmp',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TERM: 'dumb',
  };
  for (const [name, value] of Object.entries(env)) {
    // A name with '=' or NUL would smuggle a second variable or truncate the block.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new EngineError('BAD_ARGUMENT', `'${name.slice(0, 40)}' is not a valid environment variable name`, {
        hint: 'a name is letters, digits and _, not starting with a digit',
      });
    if (value.includes('\0'))
      throw new EngineError('BAD_ARGUMENT', `environment variable ${name} contains a NUL byte`, {
        hint: "pass binary data through a file (put, or run's inputs), not through the environment",
      });
    out[name] = value;
  }
  return out;
}

/** /tmp and /dev/shm are tmpfs charged to the job's memory cgroup; cap each at the smaller budget. */
export function tmpfsBytes(policy: Policy): number {
  return Math.max(1024 * 1024, Math.min(policy.budget.storageBytes, policy.budget.memoryBytes));
}

export function planBwrap(input: BwrapPlanInput): BwrapPlan {
  const { policy } = input;
  const allowList = policy.network === 'allowlist';
  if (allowList && input.egressSocket === undefined)
    // Fail closed: an allow-list job without the engine's proxy would have nowhere to go, and must not look as if it had.
    throw new EngineError('POLICY_DENIED', "a network allow-list needs the engine's egress proxy, and this job was given none", {
      hint: 'this is a headspace bug: the run verb starts the egress proxy for every job of an allow-list workspace',
    });
  if (policy.network !== 'disabled' && !allowList) {
    // Sharing the host network namespace would also expose host loopback services: refuse (#issue item 1).
    throw new EngineError('POLICY_DENIED', 'the native provider cannot give a workspace network access safely', {
      hint: 'create the workspace with network disabled',
      action: nextAction('create', { provider: 'native', network: 'disabled' }),
    });
  }
  const args: string[] = [
    '--unshare-all',
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--hostname',
    SANDBOX_HOSTNAME,
  ];
  for (const exposure of input.exposures) {
    if (exposure.kind === 'symlink') args.push('--symlink', exposure.target, exposure.dest);
    else if (exposure.kind === 'data') args.push('--perms', '0444', '--file', String(exposure.fd), exposure.dest);
    else args.push(`--${exposure.kind}`, exposure.src, exposure.dest);
  }
  const size = String(tmpfsBytes(policy));
  args.push('--proc', '/proc');
  for (const mask of input.procMasks) {
    if (!mask.path.startsWith('/proc/'))
      throw new EngineError('BAD_ARGUMENT', `proc mask ${mask.path.slice(0, 80)} is not under /proc`, {
        hint: 'this is a headspace bug: the proc masks are a fixed list of /proc paths',
      });
    if (mask.kind === 'file') args.push('--ro-bind', '/dev/null', mask.path);
    // An empty tmpfs; Landlock (read-only on /proc) keeps the job from writing into it, so no remount (one mount less per job).
    else args.push('--perms', '0555', '--tmpfs', mask.path);
  }
  args.push(...planDev());
  args.push('--size', size, '--tmpfs', '/tmp', '--size', size, '--tmpfs', '/dev/shm');
  args.push('--bind', input.filesDir, SANDBOX_WORKSPACE);
  for (const hostPath of policy.hostPaths) {
    const resolved = input.resolvedHostPaths[hostPath];
    if (resolved === undefined)
      throw new EngineError('POLICY_DENIED', `host path '${hostPath.slice(0, 80)}' was not resolved and checked before the job`, {
        hint: 'this is a headspace bug: host paths are resolved at create and checked before every job',
      });
    assertHostPathAllowed(hostPath);
    assertHostPathAllowed(resolved);
    args.push('--ro-bind', resolved, hostPath);
  }
  // A socket on a read-only bind still accepts connect(); its host directory is a random temporary one.
  if (allowList) args.push('--ro-bind', input.egressSocket!, SANDBOX_EGRESS_SOCKET);
  // The CA's certificate only (with the system roots): its key stays under HEADSPACE_HOME, which no job sees.
  if (allowList && input.caBundle !== undefined) args.push('--ro-bind', input.caBundle, SANDBOX_CA_BUNDLE);
  args.push('--chdir', input.cwd === '' ? SANDBOX_WORKSPACE : `${SANDBOX_WORKSPACE}/${input.cwd}`);
  args.push('--seccomp', String(input.seccompFd));
  args.push('--remount-ro', '/');
  // The proxy variables come before the caller's env, which may override them (NO_PROXY, say).
  const tls = allowList && input.caBundle !== undefined ? caBundleEnv() : {};
  return { args, env: planEnv(allowList ? { ...egressEnv(), ...tls, ...input.env } : input.env, input.extraPath) };
}

/**
 * /dev built by hand: what bwrap's `--dev` makes (a tmpfs, the host's six
 * harmless device nodes, the fd and stdio links) without its devpts. Every
 * devpts instance but the host's draws on one kernel.pty.max pool (4096,
 * 1024 of them reserved for the host's), and bwrap 0.8 mounts it without
 * `max=`: one workspace opened /dev/ptmx 3,071 times and every other
 * workspace's pty allocation failed with ENOSPC (red team 2, item 2). With
 * no /dev/ptmx and no /dev/pts a job's openpty() fails with ENOENT; jobs
 * that need no terminal are unaffected. One mount fewer than `--dev`.
 */
export function planDev(): string[] {
  const args = ['--perms', '0755', '--tmpfs', '/dev'];
  for (const node of JOB_DEVICES) args.push('--dev-bind', node, node);
  args.push('--symlink', '/proc/self/fd', '/dev/fd');
  for (const [n, name] of ['stdin', 'stdout', 'stderr'].entries()) args.push('--symlink', `/proc/self/fd/${n}`, `/dev/${name}`);
  return args;
}

/** A host path must be absolute, normalised, and clear of the sandbox's own mounts. */
export function assertHostPathAllowed(hostPath: string): void {
  const normalised = hostPath.replace(/\/+$/, '');
  if (!hostPath.startsWith('/') || hostPath.includes('\0') || hostPath.split('/').some((s) => s === '..' || s === '.')) {
    throw new EngineError('BAD_ARGUMENT', `host path '${hostPath.slice(0, 80)}' must be an absolute, normalised path`, {
      hint: 'give it as /absolute/path, without .., // or a trailing /',
    });
  }
  for (const reserved of RESERVED_DESTINATIONS) {
    const clash = reserved === '/' ? normalised === '' : normalised === reserved || normalised.startsWith(`${reserved}/`);
    if (clash) {
      throw new EngineError('POLICY_DENIED', `host path '${hostPath.slice(0, 80)}' would cover the sandbox's own ${reserved}`, {
        hint: 'expose a path outside /, /workspace, /tmp, /proc, /dev, /usr, /etc and the /bin-style links',
      });
    }
  }
}
