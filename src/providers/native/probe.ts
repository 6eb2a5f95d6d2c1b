/**
 * Host checks for the native provider, each with what was found and a
 * one-line remedy. Fails closed: the provider is ready only when bwrap runs a
 * real sandbox as the job uid, the seccomp filter exists for this arch, and a
 * cgroup driver enforces memory, pids and cpu.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { access, constants } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import type { LimitName } from '../../core/policy/policy.js';
import type { ProbeCheck, ProbeResult } from '../../core/provider.js';
import type { CgroupChoice } from './cgroup-driver.js';
import { chooseCgroupDriver } from './choose-cgroup-driver.js';
import { EXEC_HELPER_BUILD, probeExecHelper, type ExecHelperFacts } from './exec-helper.js';
import { seccompArchOf, type SeccompArch } from './syscall-tables.js';
import { probeWorkspaceFilesystem, type FilesystemSupport } from './workspace-filesystem.js';

const run = promisify(execFile);

export const PROVIDER_NAME = 'native';

export const REMEDIES = {
  platform: 'use a Linux host (the native provider is built on bubblewrap and cgroups)',
  bubblewrap: 'run scripts/setup-native.sh (as root: apt-get update && apt-get install -y bubblewrap)',
  userNamespaces:
    'allow unprivileged user namespaces: sysctl -w kernel.unprivileged_userns_clone=1 (Debian) or kernel.apparmor_restrict_unprivileged_userns=0 (Ubuntu 24.04)',
  seccomp: 'use an x86_64 or aarch64 host (the seccomp filter has syscall tables for these only)',
  jobUid: 'run as root with a non-zero jobUid, or as a normal user (jobs then run as that user)',
  cgroups:
    'run as root on a host with cgroup v1 memory/pids/cpu controllers, or inside a delegated cgroup v2 subtree (systemd-run --user --scope -p Delegate=yes …)',
  setpriv: 'install util-linux (setpriv drops root after cgroup v2 placement)',
  execHelper: `build the native exec shim: ${EXEC_HELPER_BUILD} (npm run build and scripts/setup.sh run it; needs a C compiler: apt-get install -y gcc libc6-dev)`,
  landlock:
    'boot a kernel with Landlock enabled (CONFIG_SECURITY_LANDLOCK=y and landlock in the lsm= list); until then jobs run without the Landlock layer, the other layers still hold',
  storage:
    'run as root with loop devices (modprobe loop; /dev/loop-control) and e2fsprogs (scripts/setup-native.sh); until then workspace storage is measured, not enforced, and /proc/self/mountinfo inside a job shows the host path of /workspace',
} as const;

/**
 * Checks that report a weaker mode, not an unusable provider: they never make
 * `ready` false. `storage-quota` fails only where the remedy is in reach
 * (root without loop devices or mkfs.ext4); a non-root user passes it with
 * the fallback spelled out in its detail.
 */
export const ADVISORY_CHECKS: ReadonlySet<string> = new Set(['storage-quota', 'landlock']);

export interface HostEnv {
  bwrapPath: string;
  setprivPath: string;
  arch: SeccompArch;
  jobUser: { uid: number; gid: number };
  /** True when we are root and switch to jobUser; false when jobs run as ourselves. */
  switchUser: boolean;
  cgroups: CgroupChoice;
  storage: FilesystemSupport;
}

export interface HostProbe {
  /** Landlock as the exec shim found it: defence in depth, reported, never a gate. */
  landlock: { abi: number; detail: string };
  result: ProbeResult;
  /** Present when ready; what run() needs. */
  env?: HostEnv;
  cgroups: CgroupChoice;
  /** Whether each workspace gets a filesystem of its own (storage enforced) or a host directory (measured). */
  storage: FilesystemSupport;
}

export async function probeHost(options: {
  bwrapPath?: string;
  jobUid: number;
  jobGid: number;
  cacheFile?: string;
  storage?: 'auto' | 'host-directory';
  /** The exec shim (exec-helper.ts); without it the provider is not ready. */
  execHelperPath: string;
}): Promise<HostProbe> {
  const checks: ProbeCheck[] = [];
  const add = (name: string, ok: boolean, detail: string, remedy: string, limits?: LimitName[]) =>
    checks.push({
      name,
      ok,
      detail,
      ...(ok ? {} : { remedy }),
      ...(limits === undefined ? {} : { limits }),
      ...(ADVISORY_CHECKS.has(name) ? { advisory: true } : {}),
    });

  const linux = process.platform === 'linux';
  add('platform', linux, `${process.platform} ${process.arch}`, REMEDIES.platform);

  const arch = seccompArchOf(process.arch);
  add('seccomp', arch !== undefined, arch === undefined ? `no syscall table for ${process.arch}` : `classic-BPF filter for ${arch}`, REMEDIES.seccomp);

  const uid = process.getuid?.() ?? -1;
  const switchUser = uid === 0;
  const jobUser = switchUser ? { uid: options.jobUid, gid: options.jobGid } : { uid, gid: process.getgid?.() ?? -1 };
  add(
    'job-uid',
    jobUser.uid > 0,
    switchUser
      ? `each workspace's jobs run as a uid of their own, 600001 and up (we are root; workspaces made before that keep uid ${jobUser.uid})`
      : `jobs run as our own uid ${uid}`,
    REMEDIES.jobUid,
  );

  // A bwrap the caller named is the only candidate: falling back would hide that it is gone.
  const bwrapPath = await findExecutable(options.bwrapPath !== undefined ? [options.bwrapPath] : ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap']);
  let bwrapOk = false;
  if (bwrapPath === undefined) add('bubblewrap', false, 'bwrap not found', REMEDIES.bubblewrap);
  else {
    const version = await cachedFact(
      options.cacheFile,
      factKey('bwrap-version', bwrapPath, jobUser),
      (v) => v.startsWith('bubblewrap'),
      () =>
        run(bwrapPath, ['--version']).then(
          (r) => r.stdout.trim(),
          (e: Error) => `unusable: ${e.message}`,
        ),
    );
    bwrapOk = version.startsWith('bubblewrap');
    add('bubblewrap', bwrapOk, `${bwrapPath}: ${version}`, REMEDIES.bubblewrap);
  }

  if (bwrapPath !== undefined && bwrapOk && jobUser.uid > 0) {
    const userns = JSON.parse(
      await cachedFact(
        options.cacheFile,
        factKey('user-namespaces', bwrapPath, jobUser),
        (v) => (JSON.parse(v) as { ok: boolean }).ok,
        async () => JSON.stringify(await tryUserNamespace(bwrapPath, switchUser ? jobUser : undefined)),
      ),
    ) as { ok: boolean; detail: string };
    add('user-namespaces', userns.ok, userns.detail, REMEDIES.userNamespaces);
  } else {
    add('user-namespaces', false, 'not checked: bwrap or the job uid is unusable', REMEDIES.userNamespaces);
  }

  // Fail closed: without the shim, descriptors the caller leaked would reach the job (#10 item 1).
  const helper = JSON.parse(
    await cachedFact(
      options.cacheFile,
      factKey('exec-helper', options.execHelperPath, jobUser),
      (v) => (JSON.parse(v) as ExecHelperFacts).ok,
      async () => JSON.stringify(await probeExecHelper(options.execHelperPath)),
    ),
  ) as ExecHelperFacts;
  add('exec-helper', helper.ok, helper.detail, REMEDIES.execHelper);
  const landlock = { abi: helper.ok ? helper.landlockAbi : 0, detail: helper.landlockDetail };
  add(
    'landlock',
    landlock.abi > 0,
    landlock.abi > 0 ? `${landlock.detail}: jobs also run under a Landlock ruleset (files, signals, abstract sockets)` : `not applied: ${landlock.detail}`,
    REMEDIES.landlock,
  );

  const cgroups = linux ? await chooseCgroupDriver(uid) : { details: ['not Linux'], enforces: { memory: false, pids: false, cpu: false } };
  const detail = cgroups.details.join('; ');
  // The only checks that back limits: failing them is a policy the host cannot back (exit 3), not an outage.
  const cgroupFix = cgroups.remedy ?? REMEDIES.cgroups;
  add('cgroup-memory', cgroups.enforces.memory, detail, cgroupFix, ['memory']);
  add('cgroup-pids', cgroups.enforces.pids, detail, cgroupFix, ['pids']);
  add('cgroup-cpu', cgroups.enforces.cpu, detail, cgroupFix, ['cpu']);

  const setprivPath = (await findExecutable(['/usr/bin/setpriv', '/bin/setpriv'])) ?? '';
  if (cgroups.driver?.placement === 'root-then-drop') add('setpriv', setprivPath !== '', setprivPath || 'setpriv not found', REMEDIES.setpriv);

  const storage: FilesystemSupport = !linux
    ? { available: false, detail: 'not Linux' }
    : options.storage === 'host-directory'
      ? { available: false, detail: "per-workspace filesystems turned off by the provider's storage option (host-directory)" }
      : await probeWorkspaceFilesystem(uid);
  add(
    'storage-quota',
    storage.available || !switchUser || options.storage === 'host-directory',
    storage.available
      ? `enforced: ${storage.detail}; /workspace shows no host path in /proc/self/mountinfo`
      : `measured, not enforced (${storage.detail}): workspace files are a host directory bound at /workspace, and its host path shows in /proc/self/mountinfo inside jobs`,
    REMEDIES.storage,
  );

  const ready = checks.every((c) => c.ok || ADVISORY_CHECKS.has(c.name));
  const result: ProbeResult = { provider: PROVIDER_NAME, ready, checks };
  if (!ready || bwrapPath === undefined || arch === undefined) return { result, cgroups, storage, landlock };
  return { result, cgroups, storage, landlock, env: { bwrapPath, setprivPath, arch, jobUser, switchUser, cgroups, storage } };
}

/**
 * The two probe facts that cost a process spawn each (bwrap's version and a
 * real user-namespace sandbox) are kept for a few minutes in the provider's
 * cache, keyed by boot, bwrap's inode and mtime, and the job uid: every CLI
 * verb is a new process, and re-probing cost ~200 ms of each one under load.
 * Only positive facts are kept, so a broken host is re-checked every time
 * (fail closed); a host that breaks within the TTL fails at launch (exit 7).
 */
const FACT_TTL_MS = 10 * 60 * 1000;

function factKey(name: string, binaryPath: string, jobUser: { uid: number; gid: number }): string | undefined {
  try {
    const stat = statSync(binaryPath);
    const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    return `${name}|${boot}|${binaryPath}|${stat.ino}|${stat.mtimeMs}|${jobUser.uid}:${jobUser.gid}`;
  } catch {
    return undefined;
  }
}

async function cachedFact(
  cacheFile: string | undefined,
  key: string | undefined,
  good: (value: string) => boolean,
  compute: () => Promise<string>,
): Promise<string> {
  let cache: Record<string, { value: string; at: number }> = {};
  if (cacheFile !== undefined && key !== undefined) {
    try {
      cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as typeof cache;
      const hit = cache[key];
      if (hit && Date.now() - hit.at < FACT_TTL_MS && hit.at <= Date.now()) return hit.value;
    } catch {
      cache = {};
    }
  }
  const value = await compute();
  if (cacheFile !== undefined && key !== undefined && good(value)) {
    try {
      const fresh = Object.fromEntries(Object.entries(cache).filter(([, v]) => Date.now() - v.at < FACT_TTL_MS));
      fresh[key] = { value, at: Date.now() };
      mkdirSync(dirname(cacheFile), { recursive: true, mode: 0o700 });
      const temporary = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(fresh), { mode: 0o600 });
      renameSync(temporary, cacheFile);
    } catch {
      // A cache that cannot be written only costs speed.
    }
  }
  return value;
}

async function findExecutable(candidates: ReadonlyArray<string | undefined>): Promise<string | undefined> {
  for (const candidate of candidates) {
    if (candidate === undefined) continue;
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** Runs `true` in a minimal sandbox as the job uid: the only reliable test that user namespaces work here. */
function tryUserNamespace(bwrapPath: string, as: { uid: number; gid: number } | undefined): Promise<{ ok: boolean; detail: string }> {
  return new Promise((resolve) => {
    const child = spawn(bwrapPath, ['--unshare-all', '--unshare-user', '--disable-userns', '--cap-drop', 'ALL', '--ro-bind', '/', '/', '--', '/bin/true'], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {},
      cwd: '/',
      ...(as === undefined ? {} : { uid: as.uid, gid: as.gid }),
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', (error) => resolve({ ok: false, detail: error.message }));
    child.on('close', (code) =>
      resolve(
        code === 0
          ? { ok: true, detail: 'bwrap created user, pid, net, ipc, uts and cgroup namespaces' }
          : { ok: false, detail: stderr.trim().split('\n')[0] ?? `bwrap exited ${code}` },
      ),
    );
  });
}
