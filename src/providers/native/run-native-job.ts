/**
 * The native provider's run: plan the sandbox (planBwrap, planJobEntry: pure),
 * take a job slot and its cgroup, place a launcher (a standby when one is
 * waiting), start the job, and after it ends empty its cgroup and read its
 * counters. The per-job path does only per-job work: host facts (probe,
 * profile, seccomp program) are memoised per instance, the workspace cgroup
 * is checked and repaired rather than rewritten, and small state files use
 * synchronous I/O (see cgroup-fs.ts for the measured reason).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EngineError, ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { validateId } from '../../core/ids.js';
import { normalizeWorkspacePath, pathComponents } from '../../core/paths.js';
import type { JobOutcome, RunRequest } from '../../core/provider.js';
import { validateNativePolicy } from './check-native-policy.js';
import { acquireJobSlot, releaseJobMarker, removeQuietly, slotFileName } from './job-marker.js';
import { spawnLauncher } from './launch-job.js';
import { SECCOMP_FD } from './launcher-fds.js';
import type { NativeParts } from './native-parts.js';
import { planBwrap } from './plan-bwrap.js';
import { planJobEntry } from './plan-job-entry.js';
import { generatedFileData, runtimeExposures } from './runtime-files.js';
import { openSafeFs } from './safe-fs.js';
import { launcherPlacement } from './standby-pool.js';

export async function runNativeJob(parts: NativeParts, request: RunRequest): Promise<JobOutcome> {
  const { layout, host, storage, cgroups, standbys } = parts;
  const id = request.workspaceId;
  const meta = await storage.requireMeta(id);
  const filesDir = storage.filesOf(id, meta);
  validateId('job', request.jobId);
  const resolvedHostPaths = validateNativePolicy(request.policy, meta.resolvedHostPaths, parts.protectedDirs);
  const env = await host.readyEnv();
  const user = parts.users.of(meta);
  await storage.assertRoomForJob(id, meta);
  const driver = env.cgroups.driver!;
  const cgroup = layout.cgroupName(id);
  const cwd = normalizeWorkspacePath(request.cwd ?? '', { allowRoot: true });
  if (cwd !== '' && !(await (await openSafeFs(filesDir, user)).isDirectory(cwd))) {
    throw new EngineError('BAD_PATH', `working directory '${cwd.slice(0, 80)}' is not a directory in the workspace`, {
      hint: `cwd is relative to /workspace: make it first with a job (mkdir -p ${cwd.slice(0, 80)}), or see the directories there are`,
      action: nextAction('ls-files', { workspaceId: id }),
    });
  }
  // cwd is the name text form; bwrap's --chdir takes the real name. An argument is passed as UTF-8
  // text, so a directory whose name is not valid UTF-8 cannot be named there: refused, never approximated.
  const cwdBytes = Buffer.concat(pathComponents(cwd).flatMap((part, i) => (i === 0 ? [part] : [Buffer.from('/'), part])));
  const realCwd = cwdBytes.toString('utf8');
  if (!Buffer.from(realCwd, 'utf8').equals(cwdBytes)) {
    throw new EngineError('BAD_PATH', `working directory '${cwd.slice(0, 80)}' has a name that is not valid UTF-8`, {
      hint: 'run from a parent directory and have the command change into it',
    });
  }
  const [profile, helper] = await Promise.all([host.profile(), parts.execHelper.pathFor(id)]);
  // One list for the mounts, the generated files and the Landlock rules, so a generated file is never written yet unreadable.
  const exposures = [...profile.exposures, ...runtimeExposures()];
  const plan = planBwrap({
    filesDir: await storage.jobSource(id, meta),
    policy: request.policy,
    exposures,
    extraPath: profile.extraPath,
    cwd: realCwd,
    env: request.env,
    seccompFd: SECCOMP_FD,
    procMasks: host.procMasks(),
    resolvedHostPaths,
    ...(request.egress?.socketPath ? { egressSocket: request.egress.socketPath } : {}),
    ...(request.egress?.caBundlePath === undefined ? {} : { caBundle: request.egress.caBundlePath }),
  });
  const command = planJobEntry({
    argv: request.argv,
    exposures,
    hostPaths: request.policy.hostPaths,
    budget: request.policy.budget,
    egress: request.policy.network === 'allowlist',
    caBundle: request.policy.network === 'allowlist' && request.egress?.caBundlePath !== undefined,
  });
  if (request.signal.aborted) return { exitCode: null, signal: null, oomKilled: false, stopped: false, aborted: true, durationMs: 0, usage: {} };

  const sentinel = layout.stopSentinelPath(id, request.jobId);
  // One job at once keeps the one-cgroup path: the job in the workspace cgroup. Several: each
  // job slot's own child cgroup, so a stop, a wall clock or the sweep after a job ends it alone.
  const atOnce = request.policy.budget.concurrency > 1;
  const slot = await acquireJobSlot(layout.workspaceDir(id), id, request.jobId, request.policy.budget.concurrency, (k) =>
    atOnce ? layout.jobCgroupName(id, k) : undefined,
  );
  const jobPath = join(layout.workspaceDir(id), slotFileName(slot));
  const jobCgroup = cgroups.ofJob(id, slot, atOnce);
  const placement = () => launcherPlacement(env, driver, jobCgroup, user, helper);
  // The abort's kill is kept and awaited before the job is reported: a v1 kill freezes the cgroup in rounds, and a
  // caller that returned (a CLI that then exits) with one round still between FROZEN and THAWED left the workspace
  // frozen, so its next job froze at placement and failed at its wall clock (3 of 12 timeouts, measured).
  let abortKill: Promise<unknown> | undefined;
  const onAbort = () => {
    abortKill = cgroups.kill(driver, jobCgroup).catch(() => false);
  };
  try {
    removeQuietly(sentinel);
    await driver.prepare(cgroup, request.policy.budget, user);
    if (atOnce) await driver.prepareJob(jobCgroup, request.policy.budget, user);
    // Leftovers of an earlier job (there should be none: pid namespace + die-with-parent) would skew counters.
    const taken = await standbys.take(driver, jobCgroup);
    let standby = taken.standby;
    if (taken.leftovers) {
      await cgroups.kill(driver, jobCgroup); // takes our standby with it
      standby = undefined;
    }
    const before = await driver.beginJob(jobCgroup);
    const launcher = standby ?? spawnLauncher(placement());
    request.signal.addEventListener('abort', onAbort, { once: true });
    const placed = await launcher.placed;
    if (!placed) {
      const exit = await launcher.exited;
      throw new ProviderError(`the job launcher could not place itself in the workspace cgroups: ${exit.stderrTail.trim().slice(0, 300)}`, {
        hint: 'check that the cgroup directories exist and are writable; doctor checks the native provider',
        action: nextAction('doctor', { provider: 'native' }),
      });
    }
    const started = performance.now();
    // A stop or abort that landed before placement found an empty cgroup: honour it now, before anything starts.
    if (request.signal.aborted || existsSync(sentinel)) await cgroups.kill(driver, jobCgroup);
    else {
      launcher.start({
        bwrapPath: env.bwrapPath,
        bwrapArgs: plan.args,
        command,
        seccomp: host.seccomp(env.arch),
        files: generatedFileData(user),
        env: plan.env,
        ...(env.switchUser && driver.placement === 'root-then-drop' ? { dropTo: { ...user, setprivPath: env.setprivPath } } : {}),
        onOutput: request.onOutput,
      });
    }
    const exit = await launcher.exited;
    const durationMs = performance.now() - started;
    await abortKill;
    // Nothing a job starts may outlive it (setsid, double fork): empty the job's cgroup.
    if (!(await driver.isEmpty(jobCgroup))) await cgroups.kill(driver, jobCgroup);
    const report = await driver.endJob(jobCgroup, before);
    const stopped = existsSync(sentinel);
    standbys.jobEnded(jobCgroup, placement, () => existsSync(layout.metaPath(id)));
    const stopSignal = stopped && exit.signal === null ? signalOfStoppedExit(exit.code) : null;
    return {
      exitCode: exit.signal === null && stopSignal === null ? exit.code : null,
      signal: exit.signal ?? stopSignal,
      oomKilled: report.oomKilled,
      stopped,
      aborted: request.signal.aborted,
      durationMs: Math.round(durationMs * 1000) / 1000,
      usage: report.usage,
    };
  } finally {
    request.signal.removeEventListener('abort', onAbort);
    await abortKill;
    removeQuietly(sentinel);
    await releaseJobMarker(jobPath, request.jobId);
  }
}

/**
 * bwrap reports a job that died of signal N as exit 128 + N (its pid-1 monitor passes the status on that way). A stop
 * sends TERM, then KILL what remains: a stopped job that exited 143 or 137 died of the stop's own signal, and is
 * reported so (SIGTERM for a plain `sleep`, which was recorded SIGKILL). Any other exit of a stopped job (a TERM
 * handler's `exit 3`) is its own and stays an exit code. Outside a stop, 128 + N stays an exit code: a job may exit
 * 143 by itself, and only the stop knows it sent the signal.
 */
function signalOfStoppedExit(code: number | null): NodeJS.Signals | null {
  if (code === 128 + 15) return 'SIGTERM';
  if (code === 128 + 9) return 'SIGKILL';
  return null;
}
