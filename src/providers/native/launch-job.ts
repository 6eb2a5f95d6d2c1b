/**
 * Starts one job in two steps. `spawnLauncher` starts the exec shim in its
 * launcher mode (helper/headspace-exec.c `--launch`): it first closes every
 * descriptor >= 3 but its three pipes — node's spawn passes on whatever the
 * caller of headspace left open without close-on-exec, and a leaked
 * directory descriptor let a job walk to the host's / (#10 item 1) — then
 * writes its own pid into each cgroup.procs file (race-free placement:
 * nothing has forked yet), reports `k` on fd 5, and waits on fd 5 for the
 * go message: the argv to exec (bwrap, or setpriv then bwrap when placement
 * had to happen as root), NUL-terminated arguments, then EOF. `start` writes
 * bwrap's arguments to fd 3, the seccomp program to fd 4, the generated /etc
 * files to fds 6–8 (launcher-fds.ts), then the go message. bwrap reads them
 * all and closes them before the job starts; the
 * job's environment travels as `--clearenv --setenv …` on fd 3, so the
 * launcher itself starts with none.
 *
 * Why two steps: the placement (the cgroup.procs write) waits about 6 ms for
 * an RCU grace period when the host has been idle, on every job. A launcher
 * spawned and placed *before* the job is asked for (a standby, see
 * standby-pool.ts) takes that wait and the sh spawn off the job's path;
 * the job still cannot run a single instruction before it is placed. If
 * node dies, the go read sees EOF and the standby exits.
 *
 * Spawned from the main thread: bwrap's --die-with-parent fires when the
 * spawning *thread* exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import type { OutputStream } from '../../core/provider.js';
import { ARGS_FD, GENERATED_FILE_FDS } from './launcher-fds.js';

/** Marks a launcher in `ps` and /proc/PID/cmdline, so other processes can tell an idle standby from a job. */
export const LAUNCHER_NAME = 'headspace-launch';

export interface Placement {
  /** The exec shim on the host (exec-helper.ts): it is the launcher. */
  launcherPath: string;
  procsFiles: string[];
  /** Set: spawn the launcher as this uid. Undefined: launch as ourselves. */
  spawnAs?: { uid: number; gid: number };
}

export interface JobSpec {
  bwrapPath: string;
  /** NUL-joined by us and written to fd 3, after the environment options. */
  bwrapArgs: string[];
  /** What bwrap runs inside (after `--`). */
  command: string[];
  seccomp: Buffer;
  /** Contents for the launcher's fds 6–8 (runtime-files.ts generatedFileData), which bwrap's `--file` reads. */
  files: readonly Buffer[];
  env: Record<string, string>;
  /** Set: drop to this uid with setpriv after placement (v2 as root). */
  dropTo?: { uid: number; gid: number; setprivPath: string };
  onOutput: (stream: OutputStream, chunk: Buffer) => void;
}

export interface LaunchSpec extends Placement, JobSpec {}

export interface Launcher {
  child: ChildProcess;
  /** Resolves true once the launcher says it sits in every cgroup; false if it exited first. */
  placed: Promise<boolean>;
  /** Resolves when the process has exited and its output pipes are drained. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderrTail: string }>;
  /** True until the process has exited or was told to start. */
  idle(): boolean;
  /** Hands the launcher its job; call once, after `placed` resolved true. */
  start(job: JobSpec): void;
  /** Lets node exit while this launcher waits (a standby); `ref` undoes it (and `start` refs it too). */
  unref(): void;
  ref(): void;
}

export type LaunchedJob = Pick<Launcher, 'child' | 'placed' | 'exited'>;

/** Is `pid` a launcher still waiting for its go message (it becomes bwrap once started)? */
export function isIdleLauncher(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv[0]?.endsWith('/headspace-exec') === true && argv[1] === '--launch' && argv[2] === LAUNCHER_NAME;
  } catch {
    return false;
  }
}

/** bwrap's options for the job environment: bwrap keeps nothing of its own environment. */
export function envArgs(env: Readonly<Record<string, string>>): string[] {
  const args = ['--clearenv'];
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  return args;
}

export function spawnLauncher(placement: Placement): Launcher {
  const child = spawn(placement.launcherPath, ['--launch', LAUNCHER_NAME, ...placement.procsFiles], {
    cwd: '/',
    env: {},
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe', ...GENERATED_FILE_FDS.map(() => 'pipe' as const)],
    ...(placement.spawnAs === undefined ? {} : { uid: placement.spawnAs.uid, gid: placement.spawnAs.gid }),
  });
  // Node types stdio as a 5-tuple; fds 3–8 are sockets (Duplex, both ways) here.
  const stdio = child.stdio as unknown as Array<Duplex | null>;
  const [, stdout, stderr, argsPipe, seccompPipe, statusPipe] = stdio;
  const filePipes = GENERATED_FILE_FDS.map((fd) => stdio[fd]);
  // bwrap may exit (a setup error) before reading: a write error is then expected, not a crash.
  for (const pipe of [argsPipe, seccompPipe, statusPipe, ...filePipes]) pipe?.on('error', () => undefined);

  let onOutput: JobSpec['onOutput'] = () => undefined;
  let stderrTail = '';
  let started = false;
  let done = false;
  stdout?.on('data', (chunk: Buffer) => onOutput('stdout', chunk));
  stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
    onOutput('stderr', chunk);
  });

  const placed = new Promise<boolean>((resolve) => {
    statusPipe?.on('data', (chunk: Buffer) => {
      if (chunk.includes('k')) resolve(true);
    });
    statusPipe?.on('close', () => resolve(false));
    child.on('error', () => resolve(false));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderrTail: string }>((resolve) => {
    child.on('error', (error) => {
      done = true;
      resolve({ code: null, signal: null, stderrTail: `spawn failed: ${error.message}` });
    });
    child.on('exit', () => (done = true));
    child.on('close', (code, signal) => {
      done = true;
      resolve({ code, signal, stderrTail });
    });
  });

  function ref(): void {
    child.ref();
    for (const pipe of stdio) (pipe as { ref?: () => void } | null)?.ref?.();
  }

  return {
    child,
    placed,
    exited,
    idle: () => !started && !done && child.exitCode === null && child.signalCode === null,
    unref() {
      child.unref();
      for (const pipe of stdio) (pipe as { unref?: () => void } | null)?.unref?.();
    },
    ref,
    start(job: JobSpec) {
      if (started) throw new Error('a launcher starts one job only');
      started = true;
      ref();
      onOutput = job.onOutput;
      const inner = ['--args', String(ARGS_FD), '--', ...job.command];
      const exec =
        job.dropTo === undefined
          ? [job.bwrapPath, ...inner]
          : [job.dropTo.setprivPath, `--reuid=${job.dropTo.uid}`, `--regid=${job.dropTo.gid}`, '--clear-groups', '--', job.bwrapPath, ...inner];
      argsPipe?.end(nulJoined([...envArgs(job.env), ...job.bwrapArgs]));
      seccompPipe?.end(job.seccomp);
      filePipes.forEach((pipe, i) => pipe?.end(job.files[i] ?? Buffer.alloc(0)));
      statusPipe?.end(nulJoined(exec));
    },
  };
}

/** Each argument NUL-terminated: what bwrap's --args and the launcher's go message read. */
function nulJoined(args: readonly string[]): Buffer {
  return Buffer.from(args.map((a) => `${a}\0`).join(''));
}

/** Spawn, place and start in one go (no standby at hand). */
export function launchJob(spec: LaunchSpec): LaunchedJob {
  const launcher = spawnLauncher(spec);
  const placed = launcher.placed.then((ok) => {
    if (ok) launcher.start(spec);
    return ok;
  });
  return { child: launcher.child, placed, exited: launcher.exited };
}
