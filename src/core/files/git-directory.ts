/**
 * Git's own test of a git directory, whatever its name: a `HEAD` file, an
 * `objects/` and a `refs/` folder. A bare mirror (`deps/foo.git`), the
 * `.bare` of a bare-plus-worktrees layout and a `.git` folder all pass it;
 * their config holds remotes (tokens in URLs) and settings git obeys
 * (core.fsmonitor runs on the user's next `git status`). Red team round 3
 * read and rewrote `proj/.bare/config` where only a `.git` name was
 * refused. Read by name (lstat, never followed): a path past PATH_MAX or
 * one that vanished reads as not a git directory.
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';

export function isGitDirectory(path: string): boolean {
  try {
    return lstatSync(join(path, 'HEAD')).isFile() && lstatSync(join(path, 'objects')).isDirectory() && lstatSync(join(path, 'refs')).isDirectory();
  } catch {
    return false;
  }
}

/** A `.git` entry (any case), or a git directory by git's own test: the user's git metadata, not the project's files. */
export function isGitMetadata(path: string, name: string): boolean {
  return name.toLowerCase() === '.git' || isGitDirectory(path);
}
