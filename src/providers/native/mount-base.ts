/**
 * The mount base, `/run/headspace-native/<root tag>` when root: a root-owned
 * 0711 directory outside HEADSPACE_HOME that holds
 *   fs/<id>       each workspace image's mount point (0711),
 *   ws/<id>       binds of host-directory files when HEADSPACE_HOME is not
 *                 searchable by the job uids (0711),
 *   img/<id>      each image's own mount when the workspace is layered (#14):
 *                 its layers, read by the overlay at fs/<id> (0700),
 *   runtime/<id>  each workspace's copy of the exec shim (0755: the launcher
 *                 runs it as the job uid; older versions also kept generated
 *                 passwd, group and hosts here, now served by descriptor).
 *
 * It exists only while workspaces do (#10 item 12): the remove of the last
 * workspace takes it away, and the next create makes it again (and its
 * parent, /run/headspace-native, shared by every home and never pruned, when
 * a boot emptied /run). Nothing here
 * locks against a concurrent create in another process; instead both sides
 * tolerate each other. Pruning removes only EMPTY directories (rmdir:
 * ENOTEMPTY and EBUSY mean someone is using it, and it stays), and making a
 * path creates one level at a time with the mode that level needs, starting
 * again from the base if a level vanished meanwhile (a recursive mkdir would
 * give the base a leaf's mode, e.g. 0700, and lock every job uid out).
 */
import { mkdir, readdir, rmdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export type BaseArea = 'fs' | 'ws' | 'runtime' | 'img';

// img: each image's own mount (its layers, #14), for the provider alone: no job uid needs to pass it.
const AREA_MODES: Readonly<Record<BaseArea, number>> = { fs: 0o711, ws: 0o711, runtime: 0o755, img: 0o700 };
const BASE_MODE = 0o711;
/** Runtime files an older headspace kept for all workspaces at once, directly in runtime/. */
export const SHARED_RUNTIME_FILES = ['passwd', 'group', 'hosts', 'headspace-exec'];

/**
 * `<base>/home` names the native root (HEADSPACE_HOME/native) the base serves,
 * so a doctor of ANOTHER home can tell a base whose home is gone or holds no
 * workspace from one in use (stale-bases.ts, #12 item 17).
 */
export const HOME_MARKER = 'home';

/** Makes `<base>/<area>[/<leaf>]`, each level with its own mode, and the home marker when `home` is given; returns the deepest path. */
export async function ensureUnderBase(base: string, area: BaseArea, leaf?: { name: string; mode: number }, home?: string): Promise<string> {
  const steps: Array<[string, number]> = [
    // The bases' shared parent (/run/headspace-native) first: /run is a tmpfs, so after a boot it is not there, and
    // every native create on a freshly booted host failed with ENOENT until something else made it. Never pruned:
    // other homes' bases live in it.
    [dirname(base), BASE_MODE],
    [base, BASE_MODE],
    [join(base, area), AREA_MODES[area]],
  ];
  if (leaf !== undefined) steps.push([join(base, area, leaf.name), leaf.mode]);
  for (let attempt = 0; ; attempt++) {
    try {
      for (const [path, mode] of steps) await mkdir(path, { mode }).catch(ignoreCode('EEXIST'));
      if (home !== undefined) await writeFile(join(base, HOME_MARKER), `${home}\n`, { flag: 'wx', mode: 0o600 }).catch(ignoreCode('EEXIST'));
      return steps[steps.length - 1]![0];
    } catch (error) {
      // A concurrent prune took a level away between two mkdirs: start again from the base.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 4) throw error;
    }
  }
}

/**
 * Removes the mount base when no workspace folder is left under
 * `workspacesDir` (a folder a crash left without meta.json counts: doctor
 * removes it first). True when the base is gone.
 */
export async function pruneMountBase(base: string, workspacesDir: string): Promise<boolean> {
  const left = await readdir(workspacesDir).catch(() => [] as string[]);
  if (left.length > 0) return false;
  for (const name of SHARED_RUNTIME_FILES) await unlink(join(base, 'runtime', name)).catch(() => undefined);
  await unlink(join(base, HOME_MARKER)).catch(() => undefined);
  for (const area of Object.keys(AREA_MODES)) await rmdir(join(base, area)).catch(() => undefined);
  return rmdir(base).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
}

function ignoreCode(code: string): (error: NodeJS.ErrnoException) => void {
  return (error) => {
    if (error.code !== code) throw error;
  };
}
