/**
 * The exec shim (helper/headspace-exec.c) on the host side: where the build
 * puts it, a copy in the runtime directory the job uid can reach, and the
 * Landlock ABI it reports. The provider fails closed without it: running
 * jobs with whatever descriptors the caller leaked is the escape it exists to
 * close (#10 item 1).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ReachablePaths } from './reachable-paths.js';

const run = promisify(execFile);

/** The command that builds the shim (also run by `npm run build` and scripts/setup.sh). */
export const EXEC_HELPER_BUILD = 'bash scripts/build-native-helper.sh';

/** dist/native/headspace-exec of this package: three levels up from both src/providers/native and dist/providers/native. */
export function defaultExecHelperPath(): string {
  return fileURLToPath(new URL('../../../dist/native/headspace-exec', import.meta.url));
}

export interface ExecHelperFacts {
  ok: boolean;
  /** Landlock ABI version the kernel offers; 0 without Landlock. */
  landlockAbi: number;
  /** What was found (or why the shim is unusable), one line. */
  detail: string;
  /** Why Landlock is absent, when it is. */
  landlockDetail: string;
}

/** Runs `headspace-exec --abi`: proves the shim executes here and asks the kernel for its Landlock ABI. */
export async function probeExecHelper(path: string): Promise<ExecHelperFacts> {
  try {
    const { stdout } = await run(path, ['--abi'], { env: {}, timeout: 5000 });
    const [version = '', ...why] = stdout.trim().split(' ');
    const abi = Number(version);
    if (!Number.isInteger(abi) || abi < 0)
      return { ok: false, landlockAbi: 0, detail: `${path} answered '${stdout.trim().slice(0, 80)}' to --abi`, landlockDetail: 'unknown' };
    return {
      ok: true,
      landlockAbi: abi,
      detail: `${path}: closes inherited descriptors before bwrap and inside`,
      landlockDetail: abi > 0 ? `Landlock ABI ${abi}` : why.join(' ') || 'the kernel has no Landlock',
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const detail =
      code === 'ENOENT'
        ? `${path} is missing (the native exec shim is not built)`
        : `${path} does not run: ${(error as Error).message.split('\n')[0]?.slice(0, 120)}`;
    return { ok: false, landlockAbi: 0, detail, landlockDetail: 'unknown: the shim does not run' };
  }
}

/**
 * Copies the shim into `dir` (the runtime directory: root-owned 0755 in /run
 * when we are root), so the job uid can execute it whatever the package's
 * own directory permissions, and the job cannot change it. Rewritten only
 * when the content differs; atomic rename, so a concurrent job never sees half a file.
 */
export async function installExecHelper(source: string, dir: string): Promise<string> {
  const target = join(dir, 'headspace-exec');
  const wanted = readFileSync(source);
  const current = await readFile(target).catch(() => undefined);
  if (current !== undefined && current.equals(wanted)) return target;
  await mkdir(dir, { recursive: true, mode: 0o755 });
  const tmp = `${target}.${process.pid}.tmp`;
  await writeFile(tmp, wanted, { mode: 0o755 });
  await rename(tmp, target);
  return target;
}

export interface ExecHelperInstaller {
  /** The shim's path in workspace `id`'s runtime directory, installed there once per process. */
  pathFor(id: string): Promise<string>;
  /** Forgets workspace `id` (removed): a workspace made again under its id installs afresh. */
  forget(id: string): void;
}

/**
 * The shim, copied into the workspace's own runtime directory (root-owned,
 * removed with the workspace), where its job uid can execute it and cannot
 * change it. Per workspace rather than shared, so nothing of it outlives the
 * last workspace (#12 item 17) and one workspace's directory never serves
 * another's uid.
 */
export function execHelperInstaller(source: string, reachable: () => Promise<ReachablePaths>): ExecHelperInstaller {
  const installed = new Map<string, Promise<string>>();
  return {
    pathFor(id) {
      let install = installed.get(id);
      if (install === undefined) {
        // The directory first, level by level with its modes (a recursive mkdir would give the mount base 0755).
        install = reachable().then(async (paths) => {
          await paths.makeRuntimeDir(id);
          return installExecHelper(source, paths.runtimeDir(id));
        });
        installed.set(id, install);
        install.catch(() => installed.delete(id));
      }
      return install;
    },
    forget: (id) => void installed.delete(id),
  };
}
