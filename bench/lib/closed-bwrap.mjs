// The raw-bubblewrap floor the native benchmarks compare against (#20: shared
// by native-overhead and scale's fan-out, so both measure the same thing):
// the native provider's own closed profile — its planner, seccomp program,
// /proc masks, generated /etc files and exec shim as the job's entry point —
// run as a dedicated uid, without cgroups. Needs root and bwrap.
import { spawn } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const JOB_UID = 600_000;

/** The closed profile's plan and a runner for it; close() removes its scratch tree. */
export async function prepareClosedBwrap(repo) {
  const mod = (p) => import(pathToFileURL(join(repo, 'dist', p)).href);
  const [
    { planBwrap },
    { planJobEntry },
    { defaultExecHelperPath, installExecHelper },
    { existingProcMasks },
    { seccompProgram },
    { seccompArchOf },
    { resolveHostProfile },
    { generatedFileData, runtimeExposures },
    { defaultPolicy },
  ] = await Promise.all([
    mod('providers/native/plan-bwrap.js'),
    mod('providers/native/plan-job-entry.js'),
    mod('providers/native/exec-helper.js'),
    mod('providers/native/proc-masks.js'),
    mod('providers/native/seccomp-program.js'),
    mod('providers/native/syscall-tables.js'),
    mod('providers/native/host-profile.js'),
    mod('providers/native/runtime-files.js'),
    mod('core/policy/policy.js'),
  ]);

  // A scratch tree the job uid can search: runtime files (passwd, group, hosts) and a files dir.
  const scratch = mkdtempSync(join(tmpdir(), 'hs-bench-native-'));
  chmodSync(scratch, 0o711);
  const filesDir = join(scratch, 'files');
  mkdirSync(filesDir, { mode: 0o700 });
  chownSync(filesDir, JOB_UID, JOB_UID);
  const jobUser = { uid: JOB_UID, gid: JOB_UID };
  const files = generatedFileData(jobUser);
  const profile = await resolveHostProfile({ cacheFile: join(scratch, 'cache', 'host-profile.json'), hostPath: process.env.PATH ?? '/usr/bin:/bin', jobUser });
  const policy = defaultPolicy();
  // The exec shim (job entry point) is copied where the job uid can run it, as the provider does; bwrap runs it as /proc/self/fd/9.
  const execHelper = await installExecHelper(defaultExecHelperPath(), join(scratch, 'runtime'));
  const exposures = [...profile.exposures, ...runtimeExposures()];
  const plan = planBwrap({
    filesDir,
    policy,
    exposures,
    extraPath: profile.extraPath,
    cwd: '',
    env: {},
    seccompFd: 4,
    procMasks: existingProcMasks(),
    resolvedHostPaths: {},
  });
  const seccomp = seccompProgram(seccompArchOf(process.arch));
  const bwrapPath = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'].find((p) => existsSync(p));

  return {
    scratch,
    filesDir,
    files,
    policy,
    execHelper,
    exposures,
    plan,
    seccomp,
    bwrapPath,
    /** The entry argv (the exec shim's) for a command under this profile. */
    entry: (argv) => planJobEntry({ argv, exposures, hostPaths: [], budget: policy.budget }),
    /** One job: `inner` from entry(); placed first into each cgroup.procs file given (the naive floor). */
    run: (inner, procsFiles = []) => runBwrap(bwrapPath, plan, inner, seccomp, files, execHelper, procsFiles),
    close: () => rmSync(scratch, { recursive: true, force: true }),
  };
}

// The same placement trick as the provider's launcher: write our own pid into each procs file, then exec.
const PLACE_AND_EXEC = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';

/** The provider's descriptor layout (launcher-fds.ts): 3 args, 4 seccomp, 6–8 the generated /etc files, 9 the exec shim. */
function runBwrap(bwrapPath, plan, inner, seccomp, files, execHelper, procsFiles) {
  const bwrap = [bwrapPath, '--args', '3', '--', ...inner];
  const [cmd, args] =
    procsFiles.length === 0 ? [bwrapPath, bwrap.slice(1)] : ['/bin/sh', ['-c', PLACE_AND_EXEC, 'launch', String(procsFiles.length), ...procsFiles, ...bwrap]];
  const helperFd = openSync(execHelper, 'r');
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: '/',
      env: plan.env,
      uid: JOB_UID,
      gid: JOB_UID,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe', 'pipe', 'ignore', 'pipe', 'pipe', 'pipe', helperFd],
    });
    closeSync(helperFd);
    const [, stdout, stderr, argsPipe, seccompPipe, , ...rest] = child.stdio;
    const filePipes = rest.slice(0, 3);
    for (const p of [argsPipe, seccompPipe, ...filePipes]) p.on('error', () => undefined);
    argsPipe.end(Buffer.from(plan.args.map((a) => `${a}\0`).join('')));
    seccompPipe.end(seccomp);
    filePipes.forEach((p, i) => p.end(files[i]));
    let err = '';
    stdout.resume();
    stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exited ${code}: ${err.slice(0, 400)}`))));
  });
}
