/**
 * Git repositories as manifest inputs (#17): a local repository (bare or
 * not, relative to the manifest) cloned at a ref as an *independent* clone —
 * `--no-local` copies objects through git's transport, never hardlinks, and
 * no alternates file is allowed to remain — then checked out detached at the
 * ref's commit and copied into the workspace like any directory input. The
 * commit is what plan shows and the receipt records. Git runs with hooks,
 * fsmonitor and the system/global configuration turned off, so a
 * repository's own configuration cannot make it run a command.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, rmSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EngineError } from '../errors.js';

const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'protocol.file.allow=always', '-c', 'advice.detachedHead=false'];

function git(args: string[], cwd?: string): { ok: boolean; out: string; err: string } {
  const run = spawnSync('git', [...SAFE, ...args], {
    encoding: 'utf8',
    ...(cwd === undefined ? {} : { cwd }),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', HOME: tmpdir() },
    timeout: 120_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  if (run.error) throw new EngineError('PROVIDER_UNAVAILABLE', 'git could not be run on the host', { hint: 'install git to use repositories as inputs' });
  return { ok: run.status === 0, out: run.stdout.trim(), err: run.stderr.trim().split('\n')[0] ?? '' };
}

/** The commit a ref names in a local repository; refused (file_not_found / bad_argument) naming the key. */
export function resolveGitRef(repository: string, ref: string, key: string): string {
  if (!existsSync(repository)) throw new EngineError('FILE_NOT_FOUND', `${key}: no repository at ${repository}`, { hint: 'check the source path' });
  refuseBorrowedObjects(repository, key);
  if (ref.startsWith('-')) throw new EngineError('BAD_ARGUMENT', `${key}: a ref may not start with '-'`, { hint: 'name a branch, a tag or a commit' });
  const found = git(['-C', repository, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!found.ok || !/^[0-9a-f]{40,64}$/.test(found.out)) {
    throw new EngineError('BAD_ARGUMENT', `${key}: ref '${ref.slice(0, 80)}' does not name a commit in ${repository}`, {
      hint: 'name a branch, a tag or a commit the repository has',
    });
  }
  return found.out;
}

/**
 * The source must hold its own objects: its git directory is `.git` (a real
 * directory, not a file or link pointing elsewhere) or the repository itself
 * (bare), with no alternates and no `commondir` (a worktree). Otherwise a
 * clone would read another repository the manifest does not name — one
 * outside the manifest's directory, or outside an MCP server's roots.
 */
function refuseBorrowedObjects(repository: string, key: string): void {
  const dotGit = join(repository, '.git');
  const dotGitStat = lstatOrNull(dotGit);
  let gitDir = repository;
  if (dotGitStat !== null) {
    if (!dotGitStat.isDirectory())
      throw new EngineError('BAD_ARGUMENT', `${key}: ${dotGit} is not a directory (a worktree or a link to another repository)`, {
        hint: 'name a repository that holds its own objects (a clone or a bare repository)',
      });
    gitDir = dotGit;
  }
  for (const borrowed of [join(gitDir, 'objects', 'info', 'alternates'), join(gitDir, 'commondir')]) {
    if (lstatOrNull(borrowed) !== null)
      throw new EngineError('BAD_ARGUMENT', `${key}: the repository borrows objects from another (${borrowed.slice(repository.length + 1)})`, {
        hint: 'repack it with its own objects (git repack -a -d, then remove the alternates file), or clone it first',
      });
  }
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** True when `newer` descends from `older` in the repository (a fast-forward). */
export function isFastForward(repository: string, older: string, newer: string): boolean {
  return git(['-C', repository, 'merge-base', '--is-ancestor', older, newer]).ok;
}

/** Clones the repository independently into a fresh temporary directory, detached at `commit`; the caller removes it. */
export function independentClone(repository: string, commit: string, key: string): { dir: string; remove(): void } {
  const parent = mkdtempSync(join(tmpdir(), 'hs-clone-'));
  const remove = () => rmSync(parent, { recursive: true, force: true });
  const dir = join(parent, 'clone');
  try {
    const cloned = git(['clone', '--quiet', '--no-local', '--no-hardlinks', '--no-checkout', '--', repository, dir]);
    if (!cloned.ok)
      throw new EngineError('BAD_ARGUMENT', `${key}: git clone failed: ${cloned.err}`, { hint: 'check that the source is a readable git repository' });
    if (existsSync(join(dir, '.git', 'objects', 'info', 'alternates'))) {
      throw new EngineError('INTERNAL', `${key}: the clone borrowed objects through an alternates file`, { hint: 'report this: clones must be independent' });
    }
    const checkedOut = git(['-C', dir, 'checkout', '--quiet', '--detach', commit]);
    if (!checkedOut.ok) throw new EngineError('BAD_ARGUMENT', `${key}: checking out ${commit} failed: ${checkedOut.err}`, { hint: 'check the ref' });
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
