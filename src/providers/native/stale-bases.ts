/**
 * Mount bases of OTHER homes left under the runtime directory
 * (/run/headspace-native/<tag>), for doctor and doctor --repair (#12 item 17).
 *
 * A base normally goes with its home's last workspace (mount-base.ts). One
 * stays behind when its home was deleted by hand, or was made by an older
 * headspace that did not prune it; only a doctor of another home can see it.
 * A base is stale when
 *   - its `home` marker names a native root that no longer exists: whatever
 *     is left of that home (mounts, cgroups, runtime files) is swept with the
 *     same sweeper its own doctor would use (leftovers.ts), then the base;
 *   - its marker names a root with no workspace folder, or it has no marker
 *     (an older headspace) and holds no workspace's entry (fs/<id>, ws/<id>,
 *     runtime/<id>): nothing in it belongs to a workspace.
 * Either way it must also have been left unchanged for `minAgeMs`, so a
 * create in another process that has just made its base is never counted.
 * Removal re-checks each base, removes only known files and EMPTY
 * directories (rmdir fails on anything else, and then the base stays), so a
 * racing create can at worst lose an empty level it makes again.
 */
import { existsSync } from 'node:fs';
import { readFile, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import type { Leftover } from '../../core/provider.js';
import type { CgroupDriver } from './cgroup-driver.js';
import { layoutOf } from './layout.js';
import { nativeLeftovers } from './leftovers.js';
import { HOME_MARKER, SHARED_RUNTIME_FILES, pruneMountBase } from './mount-base.js';

const TAG = /^[0-9a-f]{10}$/;
const AREAS = ['fs', 'ws', 'runtime', 'img'] as const;

export interface StaleBase {
  dir: string;
  /** The native root its marker names, when it has one whose tag matches. */
  home: string | null;
  /** One line: why it is stale. */
  why: string;
}

export interface StaleBaseSweeper {
  list(): Promise<StaleBase[]>;
  /** Removes every base list() finds now; returns the bases that could not be removed. */
  removeAll(): Promise<string[]>;
}

export function staleBaseSweeper(options: {
  runtimeRoot: string;
  minAgeMs: number;
  driver: () => Promise<CgroupDriver | undefined>;
  killTimeoutMs: number;
  now?: () => number;
}): StaleBaseSweeper {
  const now = options.now ?? Date.now;

  async function list(): Promise<StaleBase[]> {
    const found: StaleBase[] = [];
    for (const tag of (await readdir(options.runtimeRoot).catch(() => [] as string[])).sort()) {
      if (!TAG.test(tag)) continue;
      const dir = join(options.runtimeRoot, tag);
      if (!(await unchangedFor(dir, options.minAgeMs, now()))) continue;
      const home = await markedHome(dir, tag);
      if (home !== null && !existsSync(home)) found.push({ dir, home, why: `its home ${home} no longer exists` });
      else if (home !== null) {
        if (!(await hasWorkspaceFolders(home)) && !(await holdsWorkspaceEntries(dir))) found.push({ dir, home, why: `its home ${home} holds no workspace` });
      } else if (!(await holdsWorkspaceEntries(dir))) found.push({ dir, home: null, why: 'left by an older headspace, and it holds no workspace' });
    }
    return found;
  }

  async function removeAll(): Promise<string[]> {
    const failed: string[] = [];
    for (const base of await list()) {
      if (base.home !== null && !existsSync(base.home)) {
        // What the gone home left (its mounts, cgroups, runtime files): its own sweeper knows them.
        const sweeper = nativeLeftovers({ layout: layoutOf(base.home), mountBase: base.dir, driver: options.driver, killTimeoutMs: options.killTimeoutMs });
        for (const leftover of await sweeper.list().catch(() => [] as Leftover[])) await sweeper.remove(leftover).catch(() => undefined);
      }
      // pruneMountBase looks once more for a workspace folder of that home, and removes only known files and empty levels.
      const workspaces = base.home !== null ? layoutOf(base.home).workspacesDir : join(options.runtimeRoot, '.no-home');
      const gone = await pruneMountBase(base.dir, workspaces).catch(() => false);
      if (!gone) failed.push(base.dir);
    }
    return failed;
  }

  return { list, removeAll };
}

/** The root a base's marker names, if its tag is that root's (a marker cannot point a sweep elsewhere). */
async function markedHome(dir: string, tag: string): Promise<string | null> {
  const text = await readFile(join(dir, HOME_MARKER), 'utf8').catch(() => null);
  const home = text?.trim() ?? '';
  if (home === '' || !home.startsWith('/')) return null;
  return layoutOf(home).cgroupName('') === `${tag}-` ? home : null;
}

async function hasWorkspaceFolders(home: string): Promise<boolean> {
  return (await readdir(layoutOf(home).workspacesDir).catch(() => [] as string[])).length > 0;
}

/** Anything in fs/, ws/, runtime/ or img/ other than the shared files an older headspace kept there. */
async function holdsWorkspaceEntries(dir: string): Promise<boolean> {
  for (const area of AREAS) {
    for (const name of await readdir(join(dir, area)).catch(() => [] as string[])) {
      if (area === 'runtime' && SHARED_RUNTIME_FILES.includes(name)) continue;
      return true; // a workspace's mount point, bind or runtime folder (or something unknown: left alone)
    }
  }
  return false;
}

/** The base and its areas have not changed for `ms` (a create making its base changes one of them). */
async function unchangedFor(dir: string, ms: number, at: number): Promise<boolean> {
  for (const path of [dir, ...AREAS.map((a) => join(dir, a))]) {
    const info = await stat(path).catch(() => null);
    if (info !== null && at - info.mtimeMs < ms) return false;
  }
  return true;
}

export interface StaleBaseLeftovers {
  /** All stale bases as ONE leftover: a shared machine can hold hundreds, and doctor's report stays one line. */
  list(): Promise<Leftover[]>;
  /** Whether `leftover` is the one list() gives. */
  owns(leftover: Leftover): boolean;
  /** Removes every stale base; throws naming those that stay. */
  remove(): Promise<void>;
}

/**
 * The stale bases as doctor sees them: only for a provider that sweeps other
 * homes (the engine's), and listed only as root, which alone makes them.
 */
export function staleBaseLeftovers(sweeper: StaleBaseSweeper, runtimeRoot: string, on: { sweepOtherHomes: boolean; asRoot: boolean }): StaleBaseLeftovers {
  return {
    async list() {
      if (!on.sweepOtherHomes || !on.asRoot) return [];
      const stale = await sweeper.list();
      if (stale.length === 0) return [];
      const named = stale
        .slice(0, 3)
        .map((b) => `${basename(b.dir)} (${b.why})`)
        .join('; ');
      // The target reads as the folders it names (shell braces), never as the runtime directory itself.
      const target = `${runtimeRoot}/{${stale
        .slice(0, 3)
        .map((b) => basename(b.dir))
        .join(',')}${stale.length > 3 ? ',…' : ''}}`;
      return [
        {
          kind: 'directory',
          workspaceId: null,
          target,
          detail: `${stale.length} runtime folder(s) under ${runtimeRoot} of homes that are gone or hold no workspace: ${named}${stale.length > 3 ? '; …' : ''}`,
        },
      ];
    },
    owns: (leftover) => on.sweepOtherHomes && leftover.kind === 'directory' && leftover.workspaceId === null && leftover.target.startsWith(`${runtimeRoot}/{`),
    async remove() {
      const left = await sweeper.removeAll();
      if (left.length > 0)
        throw new ProviderError(`${left.length} stale runtime folder(s) could not be removed: ${left.slice(0, 3).join(', ')}`, {
          hint: 'something still uses them (a mount, or a create in progress); later, apply the repairs again',
          action: nextAction('doctor', { repair: true, apply: true }),
        });
    },
  };
}
