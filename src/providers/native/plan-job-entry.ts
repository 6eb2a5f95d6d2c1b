/**
 * Pure planner for what bwrap starts inside the sandbox: our exec shim
 * (helper/headspace-exec.c), reached through the launcher's descriptor at
 * EXEC_HELPER_ENTRY (launcher-fds.ts: no bind, so no host path in the job's
 * mountinfo), which closes every inherited descriptor >= 3, sets the job's
 * resource limits and umask (plan-rlimits.ts), applies a Landlock ruleset and
 * then execvp()s the job's command (127 not found, 126 not executable, as the
 * `sh -c 'exec "$@"'` wrapper it replaces did).
 *
 * The ruleset is the second layer under the bind layout (#10 item 13): if a
 * bind or a descriptor ever slips through, the job still reads and executes
 * only the read-only runtime paths, writes only /workspace, /tmp, /dev/shm
 * and a few device nodes, and reads /proc. The paths are sandbox paths, so a
 * host directory reached some other way (a leaked descriptor, a stray bind)
 * matches no rule. TCP is left to the job's own network namespace (see the
 * shim's comment on why it is not handled).
 */
import { EngineError } from '../../core/errors.js';
import type { Budget } from '../../core/policy/policy.js';
import { EXEC_HELPER_ENTRY } from './launcher-fds.js';
import type { Exposure } from './plan-bwrap.js';
import { rlimitArgs } from './plan-rlimits.js';
import { EGRESS_HTTP_PORT, EGRESS_SOCKS_PORT, SANDBOX_CA_BUNDLE, SANDBOX_EGRESS_SOCKET } from '../../core/network/egress-sandbox.js';

/**
 * Device nodes a job reads and writes: all of /dev there is (plan-bwrap.ts
 * builds it). No /dev/ptmx and no /dev/pts: every devpts instance but the
 * host's shares kernel.pty.max, so one workspace could take every pty of
 * every other (red team 2, item 2).
 */
export const JOB_DEVICES = ['/dev/null', '/dev/zero', '/dev/full', '/dev/random', '/dev/urandom', '/dev/tty'] as const;

export const JOB_WRITABLE = ['/workspace', '/tmp', '/dev/shm'] as const;

export interface JobEntryInput {
  argv: readonly string[];
  /** The runtime profile's read-only view (symlinks need no rule: Landlock checks what they resolve to). */
  exposures: readonly Exposure[];
  /** Sandbox destinations of the workspace's read-only host paths. */
  hostPaths: readonly string[];
  /** The job's budget: its pids limit sizes RLIMIT_NOFILE and RLIMIT_NPROC. */
  budget: Pick<Budget, 'pidsLimit'>;
  /** A network allow-list (#18): the shim starts the loopback relay to the egress socket. */
  egress?: boolean;
  /** Secrets at egress (#18 item 3): the trust bundle at SANDBOX_CA_BUNDLE is readable (a data file: read, never executed). */
  caBundle?: boolean;
}

/** `--rx`/`--rw`/`--dev`/`--read`/`--list` PATH pairs for the shim, most general first. */
export function planLandlockRules(exposures: readonly Exposure[], hostPaths: readonly string[]): string[] {
  const rules: string[] = ['--list', '/', '--read', '/proc'];
  const readOnly = new Set<string>();
  for (const e of exposures) if (e.kind !== 'symlink' && e.kind !== 'data') readOnly.add(e.dest);
  for (const p of hostPaths) readOnly.add(p);
  for (const p of readOnly) rules.push('--rx', p);
  // Generated files (passwd, group, hosts) are data: read, never executed.
  for (const e of exposures) if (e.kind === 'data') rules.push('--read', e.dest);
  for (const p of JOB_WRITABLE) rules.push('--rw', p);
  for (const p of JOB_DEVICES) rules.push('--dev', p);
  return rules;
}

export function planJobEntry(input: JobEntryInput): string[] {
  if (input.argv.length === 0) throw new EngineError('BAD_ARGUMENT', 'the command is empty', { hint: 'give a command to run, e.g. python3 main.py' });
  const relay = input.egress === true ? ['--relay', SANDBOX_EGRESS_SOCKET, String(EGRESS_HTTP_PORT), String(EGRESS_SOCKS_PORT)] : [];
  const bundle = input.caBundle === true ? ['--read', SANDBOX_CA_BUNDLE] : [];
  return [
    EXEC_HELPER_ENTRY,
    ...rlimitArgs(input.budget),
    ...relay,
    '--landlock',
    ...planLandlockRules(input.exposures, input.hostPaths),
    ...bundle,
    '--',
    ...input.argv,
  ];
}
