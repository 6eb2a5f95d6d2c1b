/**
 * A real native workspace for integration tests: temp root, one workspace,
 * a `run` helper that collects output, and a teardown that removes it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jobUserOfSlot, JOB_SLOT_COUNT, type JobUser } from '../../../../src/core/job-identity.js';
import { defaultPolicy, type Policy } from '../../../../src/core/policy/policy.js';
import type { JobOutcome, Provider } from '../../../../src/core/provider.js';
import { createNativeProvider, type NativeProviderOptions } from '../../../../src/providers/native/native-provider.js';

export interface NativeFixture {
  root: string;
  provider: Provider;
  workspaceId: string;
  policy: Policy;
  /** The job identity the workspace was created with (its jobs' host uid when we are root). */
  jobUser: JobUser;
  run(argv: string[], extra?: { policy?: Policy; signal?: AbortSignal; jobId?: string }): Promise<{ outcome: JobOutcome; stdout: string; stderr: string }>;
  dispose(): Promise<void>;
}

/**
 * A job identity for a test workspace made without the engine's store: a
 * random slot in the upper half of the range, so workspaces of test files
 * running at once (each with its own root) almost never share a uid.
 */
export function testJobUser(): JobUser {
  const half = Math.floor(JOB_SLOT_COUNT / 2);
  return jobUserOfSlot(half + 1 + (randomBytes(4).readUInt32BE(0) % (JOB_SLOT_COUNT - half)));
}

export async function makeNativeWorkspace(
  patch: (policy: Policy) => void = () => undefined,
  options: Partial<NativeProviderOptions> & { rootParent?: string; rootMode?: number; jobUser?: JobUser } = {},
): Promise<NativeFixture> {
  const { rootParent, rootMode, jobUser = testJobUser(), ...providerOptions } = options;
  const root = mkdtempSync(join(rootParent ?? tmpdir(), 'hs-native-it-'));
  if (rootMode !== undefined) chmodSync(root, rootMode); // mkdtemp makes it 0700, which the job uid cannot search
  const provider = createNativeProvider({ root, ...providerOptions });
  const policy = defaultPolicy();
  patch(policy);
  const workspaceId = `it-${randomBytes(4).toString('hex')}`;
  await provider.create({ workspaceId, policy, profile: 'host', jobUser });
  return {
    root,
    provider,
    workspaceId,
    policy,
    jobUser,
    async run(argv, extra = {}) {
      let stdout = '';
      let stderr = '';
      const outcome = await provider.run({
        workspaceId,
        jobId: extra.jobId ?? `job-${randomBytes(4).toString('hex')}`,
        argv,
        env: {},
        policy: extra.policy ?? policy,
        onOutput: (stream, chunk) => (stream === 'stdout' ? (stdout += chunk.toString()) : (stderr += chunk.toString())),
        signal: extra.signal ?? new AbortController().signal,
      });
      return { outcome, stdout, stderr };
    },
    async dispose() {
      await provider.remove(workspaceId).catch(() => undefined);
      // The folder is reclaimed in the background: deleting it beside the reclaim shell failed a run with ENOTEMPTY
      // (the shell writes its started marker into the folder once it holds the lock).
      await waitForReclaim(root, workspaceId).catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * Waits until the background reclaim of removed workspace `id` under `root`
 * (reclaim-storage.ts) has ended: its folder deleted and its shell gone (the
 * shell takes the mount base away after the folder, when it was the last).
 */
export async function waitForReclaim(root: string, id: string, timeoutMs = 30_000): Promise<void> {
  const dir = join(root, 'workspaces', id);
  const deadline = Date.now() + timeoutMs;
  while (existsSync(dir) || reclaimShellRunning(dir)) {
    if (Date.now() > deadline) throw new Error(`the storage of ${id} was not reclaimed within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Is a reclaim shell (argv `sh -c SCRIPT headspace-reclaim <dir> ...`) of `dir` still running? */
export function reclaimShellRunning(dir: string): boolean {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let argv: string[];
    try {
      argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (argv[3] === 'headspace-reclaim' && argv[4] === dir) return true;
  }
  return false;
}

/** The lines of /proc/self/mountinfo whose mount point is `path` (two means one mount stacked on another). */
export function mountsAt(path: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .filter((line) => line.split(' ')[4] === path);
}

/** The first mount point in /proc/self/mountinfo ending with `suffix`. */
export function mountPointEnding(suffix: string): string {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[4] ?? '')
    .find((path) => path.endsWith(suffix))!;
}

/** Holds an flock on `file` (flock(1) opens it, creating it if missing) until the returned function is called, as another caller would. */
export async function holdLock(file: string): Promise<() => Promise<void>> {
  const holder = spawn('/usr/bin/flock', ['-x', file, '/bin/sh', '-c', 'echo held; read _ || true'], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise((resolve) => holder.stdout.once('data', resolve));
  return () =>
    new Promise((resolve) => {
      holder.once('close', () => resolve());
      holder.stdin.end();
    });
}
