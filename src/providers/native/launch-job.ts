/**
 * Starts one job: a tiny `sh` writes its own pid into each cgroup.procs file
 * (race-free placement: nothing has forked yet), reports on fd 5 that it is
 * placed, then execs bwrap (directly as the job uid, or through setpriv when
 * placement had to happen as root). bwrap reads its arguments from fd 3 and
 * the seccomp program from fd 4, and closes both before the job starts.
 *
 * Spawned from the main thread: bwrap's --die-with-parent fires when the
 * spawning *thread* exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import type { OutputStream } from '../../core/provider.js';

/** `$1` = number of procs files, then the files, then the command to exec. */
const PLACE_AND_EXEC = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; printf k >&5; exec 5>&-; exec "$@"';

export interface LaunchSpec {
  bwrapPath: string;
  /** NUL-joined by us and written to fd 3. */
  bwrapArgs: string[];
  /** What bwrap runs inside (after `--`). */
  command: string[];
  seccomp: Buffer;
  env: Record<string, string>;
  procsFiles: string[];
  /** Set: spawn the launcher as this uid. Undefined: launch as ourselves. */
  spawnAs?: { uid: number; gid: number };
  /** Set: drop to this uid with setpriv after placement (v2 as root). */
  dropTo?: { uid: number; gid: number; setprivPath: string };
  onOutput: (stream: OutputStream, chunk: Buffer) => void;
}

export interface LaunchedJob {
  child: ChildProcess;
  /** Resolves true once the launcher says it sits in every cgroup; false if it exited first. */
  placed: Promise<boolean>;
  /** Resolves when the process has exited and its output pipes are drained. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderrTail: string }>;
}

export function launchJob(spec: LaunchSpec): LaunchedJob {
  const inner = ['--args', '3', '--', ...spec.command];
  const exec = spec.dropTo === undefined
    ? [spec.bwrapPath, ...inner]
    : [spec.dropTo.setprivPath, `--reuid=${spec.dropTo.uid}`, `--regid=${spec.dropTo.gid}`, '--clear-groups', '--', spec.bwrapPath, ...inner];
  const child = spawn('/bin/sh', ['-c', PLACE_AND_EXEC, 'headspace-launch', String(spec.procsFiles.length), ...spec.procsFiles, ...exec], {
    cwd: '/',
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
    ...(spec.spawnAs === undefined ? {} : { uid: spec.spawnAs.uid, gid: spec.spawnAs.gid }),
  });
  // Node types stdio as a 5-tuple; fds 3–5 are sockets (Duplex) here.
  const stdio = child.stdio as unknown as Array<Duplex | null>;
  const [, stdout, stderr, argsPipe, seccompPipe, statusPipe] = stdio;
  // bwrap may exit (a setup error) before reading: a write error is then expected, not a crash.
  for (const pipe of [argsPipe, seccompPipe, statusPipe]) pipe?.on('error', () => undefined);
  argsPipe?.end(Buffer.from(spec.bwrapArgs.map((a) => `${a}\0`).join('')));
  seccompPipe?.end(spec.seccomp);

  let stderrTail = '';
  stdout?.on('data', (chunk: Buffer) => spec.onOutput('stdout', chunk));
  stderr?.on('data', (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString('utf8')).slice(-2000);
    spec.onOutput('stderr', chunk);
  });

  const placed = new Promise<boolean>((resolve) => {
    statusPipe?.on('data', (chunk: Buffer) => {
      if (chunk.includes('k')) resolve(true);
    });
    statusPipe?.on('close', () => resolve(false));
    child.on('error', () => resolve(false));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderrTail: string }>((resolve) => {
    child.on('error', (error) => resolve({ code: null, signal: null, stderrTail: `spawn failed: ${error.message}` }));
    child.on('close', (code, signal) => resolve({ code, signal, stderrTail }));
  });
  return { child, placed, exited };
}
