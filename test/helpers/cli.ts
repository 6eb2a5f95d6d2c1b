import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(REPO, 'bin', 'headspace');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function assertBuilt(): void {
  if (!existsSync(join(REPO, 'dist', 'cli', 'main.js'))) throw new Error('dist/ is missing: run `npm run build` (npm test does it for you)');
}

/**
 * A fresh HEADSPACE_HOME for one test file. `cleanup` first removes every
 * native workspace still recorded there (a native workspace holds a loop
 * mount, cgroups and binds outside the home: deleting the folder alone would
 * leak them), then deletes the folder.
 */
export function makeHome(): { home: string; cleanup(): Promise<void> } {
  const home = mkdtempSync(join(tmpdir(), 'hs-cli-'));
  return { home, cleanup: () => removeHome(home) };
}

export async function removeHome(home: string): Promise<void> {
  if (existsSync(join(home, 'native'))) {
    const { createNativeProvider } = await import('../../src/providers/native/native-provider.js');
    const provider = createNativeProvider({ root: join(home, 'native') });
    for (const id of await provider.listWorkspaces().catch(() => [] as string[])) {
      await provider.stop(id).catch(() => undefined);
      await provider.remove(id).catch(() => undefined);
    }
  }
  // A destroy reclaims native storage in the background, and a create refills the image pool in the background
  // (#20): deleting the home under either still at work failed (ENOTEMPTY on native/pool, a whole run under load),
  // so let the home's background shells end first (bounded).
  for (let i = 0; i < 600 && backgroundShellsUnder(home); i++) await new Promise((r) => setTimeout(r, 50));
  // The home's `headspace serve` (HEADSPACE_TEST_SERVE=1) would otherwise stay up for its idle time.
  if (existsSync(join(home, 'serve', 'sock')))
    spawnSync(BIN, ['serve', '--stop'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HEADSPACE_HOME: home } });
  // The home's shared supervisor would otherwise stay up, idle, for its idle time after the home is gone.
  for (const pid of sharedSupervisorsOf(home)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  // A detached run's supervisor may still be closing its store (removing the WAL) just after its job's record was written.
  rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}

/**
 * Is a native background shell of `home` still running: a storage reclaim (argv `sh -c SCRIPT headspace-reclaim
 * <workspace dir> …`) or an image pool refill (argv `sh -c SCRIPT headspace-pool-refill …`, working in the pool)?
 */
function backgroundShellsUnder(home: string): boolean {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        if (argv[3] === 'headspace-reclaim') return (argv[4] ?? '').startsWith(`${home}/`);
        if (argv[3] === 'headspace-pool-refill') return readlinkSync(`/proc/${pid}/cwd`).startsWith(`${home}/`);
        return false;
      } catch {
        return false;
      }
    });
}

/** The pids of the live shared supervisors of `home` (from /proc: their argv is `headspace-supervisor --shared <home>`). */
export function sharedSupervisorsOf(home: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const at = argv.findIndex((a) => a.endsWith('/headspace-supervisor'));
        return at >= 0 && argv[at + 1] === '--shared' && argv[at + 2] === home ? [Number(pid)] : [];
      } catch {
        return [];
      }
    })
    .sort((a, b) => a - b);
}

/**
 * HEADSPACE_TEST_SERVE=1 runs every call of cli() and cliAsync() through
 * `headspace serve` (HEADSPACE_SERVE=require, #20), so the CLI suite checks
 * that the resident path answers exactly as the in-process one. A call that
 * chooses its own HEADSPACE_SERVE keeps it; a crash-injection call
 * (HEADSPACE_TEST_CRASH_AT) stays in-process: its SIGKILL is for the process
 * that runs the verb, which would be the server.
 */
export function serveModeEnv(env: Record<string, string>): Record<string, string> {
  if (process.env.HEADSPACE_TEST_SERVE !== '1' || env.HEADSPACE_SERVE !== undefined || env.HEADSPACE_TEST_CRASH_AT !== undefined) return {};
  return { HEADSPACE_SERVE: 'require', HEADSPACE_SERVE_IDLE_SECONDS: '60' };
}

/** The environment of one call of the bin: a fake-provider home, what the test adds, and the serve mode. */
export function callEnv(home: string, env: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    HEADSPACE_HOME: home,
    HEADSPACE_PROVIDER: 'fake',
    ...env,
    ...serveModeEnv(env),
  };
}

/** Runs the built bin as a user would, with a controlled environment. */
export function cli(home: string, args: string[], env: Record<string, string> = {}): CliRun {
  assertBuilt();
  const result = spawnSync(BIN, args, {
    encoding: 'utf8',
    env: callEnv(home, env),
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Starts the bin without waiting (for stop-from-another-process tests). */
export function cliAsync(home: string, args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  assertBuilt();
  return new Promise((resolvePromise) => {
    const child = spawn(BIN, args, {
      env: callEnv(home, env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}

/** Runs a pasted command line through a shell with the same environment. */
export function shell(home: string, line: string): CliRun {
  const result = spawnSync('/bin/sh', ['-c', line], {
    encoding: 'utf8',
    env: { PATH: `${dirname(BIN)}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: process.env.HOME ?? '/root', HEADSPACE_PROVIDER: 'fake', ...serveModeEnv({}) },
    maxBuffer: 64 * 1024 * 1024,
  });
  void home;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Waits (up to `ms`) until `status WORKSPACE` says a job is running; throws if none starts. */
export async function untilAJobRuns(home: string, workspace: string, env: Record<string, string>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const status = JSON.parse(cli(home, ['status', workspace, '--json'], env).stdout) as { outcome_summary: string };
    if (status.outcome_summary.includes('is running')) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the job never started');
}
