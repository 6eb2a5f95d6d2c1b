/**
 * Makes a workspace's files directory reachable by the job uid.
 *
 * bwrap runs as the job uid and resolves every bind source with realpath()
 * (even `--bind-fd`, which it turns back into a path), so each ancestor of
 * the source must be searchable by that uid. `options.root` often is not
 * (e.g. /root/.headspace, /root being 0700). When it is not and we are root,
 * the files directory is bind-mounted once, at create or on first run, under
 * a root-owned 0711 directory in /run; `release` unmounts it at remove.
 * When the root is searchable, the files directory is used as is.
 *
 * As root the workspace's runtime directory (its copy of the exec shim, which
 * the launcher runs as the job uid) lives under the mount base in /run. Nothing
 * in it is bound into the sandbox: the shim runs through a descriptor and
 * the generated passwd/group/hosts come by descriptor too (launcher-fds.ts),
 * so no job's mountinfo names it (probe `proc-host-paths`).
 */
import { execFile } from 'node:child_process';
import { statSync, type Stats } from 'node:fs';
import { mkdir, realpath, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ProviderError } from '../../core/errors.js';
import { ensureUnderBase } from './mount-base.js';

const run = promisify(execFile);

/**
 * "Any job uid": owns nothing and is in no group, so searchableBy checks the
 * 'other' bits. As root each workspace's jobs run as a uid of their own
 * (#10 item 4), so a path is reachable only when every such uid reaches it.
 */
export const ANY_JOB_USER: Readonly<{ uid: number; gid: number }> = Object.freeze({ uid: -1, gid: -1 });

/** Can `uid`/`gid` search every directory from / down to and including `path`? Pure over stat results. */
export async function searchableBy(path: string, uid: number, gid: number): Promise<boolean> {
  let dir = await realpath(path).catch(() => undefined);
  if (dir === undefined) return false;
  for (;;) {
    const info = await stat(dir).catch(() => undefined);
    if (info === undefined) return false;
    const bit = info.uid === uid ? 0o100 : info.gid === gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) return false;
    if (dir === '/') return true;
    dir = dirname(dir);
  }
}

export interface ReachablePaths {
  /** The path bwrap binds at /workspace for this workspace. */
  filesSource(id: string, filesDir: string): Promise<string>;
  /** The workspace's runtime directory (its exec shim copy); searchable by every job uid. */
  runtimeDir(id: string): string;
  /** Makes `runtimeDir(id)` (as root: level by level under the mount base). */
  makeRuntimeDir(id: string): Promise<void>;
  release(id: string): Promise<void>;
}

export async function planReachablePaths(options: {
  root: string;
  runtimeDirUnderRoot: string;
  mountBase: string;
  uid: number;
  gid: number;
}): Promise<ReachablePaths> {
  await mkdir(options.root, { recursive: true });
  const searchable = await searchableBy(options.root, options.uid, options.gid);
  const root = process.getuid?.() === 0;
  if (!searchable && !root) {
    throw new ProviderError(`the job uid ${options.uid} cannot reach ${options.root}`, {
      hint: `make every directory above ${options.root} searchable (chmod o+x), or choose another HEADSPACE_HOME`,
    });
  }
  const base = options.mountBase;
  // The mount base comes and goes with its workspaces (mount-base.ts): made on demand, level by level.
  const runtime = {
    runtimeDir: (id: string) => join(root ? join(base, 'runtime') : options.runtimeDirUnderRoot, id),
    async makeRuntimeDir(id: string) {
      if (root) await ensureUnderBase(base, 'runtime', { name: id, mode: 0o755 }, options.root);
      else await mkdir(join(options.runtimeDirUnderRoot, id), { recursive: true, mode: 0o755 });
    },
  };
  if (searchable) return { ...runtime, filesSource: async (_id, filesDir) => filesDir, release: async () => undefined };
  return {
    ...runtime,
    async filesSource(id, filesDir) {
      const target = join(base, 'ws', id);
      // Per job: two synchronous stats (microseconds) say whether the bind is already in place.
      const src = statSync(filesDir);
      const dst = statIfAny(target);
      if (dst !== undefined && dst.dev === src.dev && dst.ino === src.ino) return target;
      await ensureUnderBase(base, 'ws', { name: id, mode: 0o700 }, options.root);
      await run('/usr/bin/mount', ['--bind', filesDir, target]).catch((error: unknown) => {
        throw new ProviderError(`cannot bind ${filesDir} for the job uid`, {
          cause: error,
          hint: 'the native provider needs root (mount) when HEADSPACE_HOME is not searchable by other users',
        });
      });
      return target;
    },
    async release(id) {
      const target = join(base, 'ws', id);
      // Nothing there, nothing mounted there: a workspace on its own image never had this bind, and the umount process cost every destroy ~10–25 ms (#20).
      if (statIfAny(target) === undefined) return;
      await run('/usr/bin/umount', ['-l', target]).catch(() => undefined);
      await rmdir(target).catch(() => undefined);
    },
  };
}

function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
