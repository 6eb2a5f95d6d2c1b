import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every regular file under `dir` (recursively), leaving out the paths `skip` names: the surfaces the recording guarantees search. */
export function filesUnder(dir: string, skip: (path: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (skip(path)) return [];
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) return [];
    return stat.isDirectory() ? filesUnder(path, skip) : stat.isFile() ? [path] : [];
  });
}
