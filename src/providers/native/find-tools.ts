/**
 * Where a command name resolves inside a native job (#17, plan's setup-tool
 * check), worked out on the host without starting anything: each directory
 * of the job's PATH (plan-bwrap.ts: the toolchain directories, then the
 * default PATH) is looked in as the job sees it — the file must exist, be
 * executable, and its real location must be inside what the profile
 * exposes (/usr, or a bound toolchain), so a link that would dangle in the
 * sandbox does not count.
 */
import { realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostProfile } from './host-profile.js';
import { DEFAULT_PATH } from './plan-bwrap.js';

export async function findNativeTools(profile: HostProfile, names: readonly string[]): Promise<Record<string, string | null>> {
  const exposed = [
    '/usr/',
    ...profile.exposures.flatMap((e) => ((e.kind === 'ro-bind' || e.kind === 'ro-bind-try') && e.src === e.dest ? [`${e.src.replace(/\/$/, '')}/`] : [])),
  ];
  const path = [...profile.extraPath, ...DEFAULT_PATH.split(':')];
  const found: Record<string, string | null> = {};
  for (const name of names) {
    found[name] = null;
    if (name === '' || name.includes('/') || name.includes('\0')) continue;
    for (const dir of path) {
      const candidate = join(dir, name);
      const info = await stat(candidate).catch(() => undefined);
      if (!info?.isFile() || (info.mode & 0o111) === 0) continue;
      const real = await realpath(candidate).catch(() => '');
      if (exposed.some((prefix) => real.startsWith(prefix))) {
        found[name] = candidate;
        break;
      }
    }
  }
  return found;
}
