/**
 * Where the caller's own PATH finds a program, to say so beside what the
 * workspace's profile finds when the two differ: a new user's plan said
 * "python3: found at /usr/bin/python3" while his shell's python3 was a pyenv
 * one with pytest, and prepare then failed with "No module named pytest" and
 * no word of the difference.
 */
import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The first executable regular file named `program` in the directories of `path` (a PATH value), or null. */
export function firstOnPath(program: string, path: string | undefined): string | null {
  for (const dir of (path ?? '').split(':')) {
    if (dir === '' || !dir.startsWith('/')) continue;
    const candidate = join(dir, program);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: on to the next directory
    }
  }
  return null;
}

/**
 * A note when `path` (the caller's PATH) finds another `program` than the
 * profile's `at`, the one a job will run; '' when they agree, when the
 * caller's finds none, or when `at` is no host file (the fake's scripted
 * commands, a path inside an image the host lacks), where there is nothing
 * the two could be confused with.
 */
export function callerPathNote(program: string, at: string, path: string | undefined): string {
  const mine = firstOnPath(program, path);
  if (mine === null || mine === at || !existsSync(at)) return '';
  return ` — not the ${mine} your PATH finds first: jobs run ${at}, with what is installed for it`;
}
