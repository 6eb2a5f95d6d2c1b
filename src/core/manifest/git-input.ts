/**
 * Git repositories as manifest inputs (#17): a local repository (bare or
 * not, relative to the manifest) or a remote one (git-url.ts: https://,
 * ssh://, user@host:path), cloned host-side at a ref as an *independent*
 * clone — `--no-local` copies objects through git's transport, never
 * hardlinks, and no alternates file is allowed to remain — then checked out
 * detached at the ref's commit and copied into the workspace like any
 * directory input. The commit is what plan shows and the receipt records.
 *
 * The content is hostile-ish, so git runs with hooks, fsmonitor and the
 * system/global configuration off (a repository's own configuration cannot
 * make it run a command), never finds a repository by itself (every call
 * runs in an empty private directory with discovery stopped above it, and a
 * local source is named by its git directory: a red team's bare repository
 * committed beside a manifest made `plan` run its core.gitProxy as the
 * caller), a source's git directory holds no link or special file (links
 * there pulled another repository's objects in), a checkout is measured
 * against the storage budget before it is written (a 232 KB repository
 * wrote 2 GB to the host's /tmp), objects are fsck'ed on the way in, only the
 * transports a manifest may name are allowed (never ext:: or fd::), HTTP
 * redirects are not followed, nothing ever prompts, and a clone's remote URL
 * keeps no password. A link in the checkout is refused by the copy into the
 * workspace (files/host-source.ts), never followed.
 */
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { EngineError } from '../errors.js';
import { isGitDirectory } from '../files/git-directory.js';
import { redactGitUrl, urlForClone } from './git-url.js';

/** Where a repository comes from: a local directory, or a remote URL (which may carry a secret: only `shown` is ever written down). */
export interface GitSource {
  /** `repositories[0]` */
  key: string;
  /** The source as it may be shown and recorded: the manifest's relative path, or the URL with any password redacted. */
  shown: string;
  /** The local repository's absolute host path, or the remote URL as written (secret included). */
  location: string;
  remote: boolean;
}

const SAFE = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'advice.detachedHead=false',
  '-c',
  'transfer.fsckObjects=true',
  '-c',
  'protocol.allow=never',
  '-c',
  'protocol.file.allow=always',
  '-c',
  'protocol.https.allow=always',
  '-c',
  'protocol.ssh.allow=always',
  // http:// and git:// are admitted by git-url.ts only towards loopback (a local mirror, the tests).
  '-c',
  'protocol.http.allow=always',
  '-c',
  'protocol.git.allow=always',
  '-c',
  'http.followRedirects=false',
  '-c',
  'credential.helper=',
  // A bare repository is used only where this module names it (--git-dir, a clone's source), never one git came upon.
  '-c',
  'safe.bareRepository=explicit',
  // Attributes change the bytes a checkout writes: none from a HOME another user could write (/tmp/.config/git/attributes).
  '-c',
  'core.attributesFile=/dev/null',
];

/**
 * Every transport refused, for the calls that need none (rev-parse, ls-tree,
 * merge-base, checkout, diff): a partial clone's promisor remote makes git
 * fetch a missing object by itself, through the repository's own
 * core.sshCommand (red team round 2 ran a program with `plan` that way).
 * On the command line, so a repository's own protocol.*.allow cannot turn
 * one back on. GIT_NO_LAZY_FETCH (below) says the same to a git that knows
 * it, including the source's upload-pack during a clone, where `-c` does not
 * reach (round 3).
 */
const OFFLINE = ['allow', 'file.allow', 'git.allow', 'ssh.allow', 'http.allow', 'https.allow', 'ext.allow', 'fd.allow'].flatMap((key) => [
  '-c',
  `protocol.${key}=never`,
]);

/**
 * Runs git asynchronously: a clone over the network can take a while, and
 * the engine's process (an MCP server) must keep answering meanwhile. Only
 * `clone` and `ls-remote` (`network: true`) may use a transport.
 */
function git(args: string[], options: { remote?: GitSource; network?: boolean } = {}): Promise<{ ok: boolean; out: string; err: string }> {
  // Never the caller's directory: git looks for a repository there and up from it, and obeys the configuration of the one
  // it finds (core.gitProxy, url.*.insteadOf). An empty directory of our own, with discovery stopped above it, finds none;
  // a call about a repository names it (--git-dir, or -C into a clone this module made).
  const cwd = mkdtempSync(join(tmpdir(), 'hs-git-'));
  return runGit(args, cwd, options).finally(() => rmSync(cwd, { recursive: true, force: true }));
}

function runGit(args: string[], cwd: string, options: { remote?: GitSource; network?: boolean }): Promise<{ ok: boolean; out: string; err: string }> {
  // A remote fetch gets the user's HOME (ssh keys and known_hosts, ~/.netrc) and agent socket, never git's global configuration.
  const remoteEnv: Record<string, string> = options.remote?.remote
    ? {
        HOME: homedir(),
        GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
        ...(process.env.SSH_AUTH_SOCK === undefined ? {} : { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK }),
      }
    : { HOME: cwd };
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...SAFE, ...(options.network === true ? [] : OFFLINE), ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CEILING_DIRECTORIES: dirname(cwd),
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        GIT_ASKPASS: '/bin/false',
        SSH_ASKPASS: '/bin/false',
        GIT_PROTOCOL_FROM_USER: '0',
        GIT_NO_LAZY_FETCH: '1',
        ...remoteEnv,
      },
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      // Listings are bounded: a remote advertising more than this is refused rather than buffered.
      if (outBytes > GIT_OUTPUT_LIMIT) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 64) err.push(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), GIT_TIMEOUT_MS);
    child.on('error', () => {
      clearTimeout(timer);
      reject(new EngineError('PROVIDER_UNAVAILABLE', 'git could not be run on the host', { hint: 'install git to use repositories as inputs' }));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const first =
        signal === null
          ? (Buffer.concat(err).toString('utf8').trim().split('\n')[0] ?? '')
          : `git was killed after ${GIT_TIMEOUT_MS / 1000} s or ${GIT_OUTPUT_LIMIT} bytes of output`;
      resolve({
        ok: code === 0,
        out: Buffer.concat(out).toString('utf8').trim(),
        // git's own messages may quote the URL it was given: the secret never leaves this function.
        err: options.remote?.remote ? scrub(first, options.remote.location) : first,
      });
    });
  });
}

const GIT_TIMEOUT_MS = 300_000;
const GIT_OUTPUT_LIMIT = 64 * 1024 * 1024;

/** A message with the URL (and its password, wherever it appears alone) replaced by the redacted form. */
function scrub(text: string, url: string): string {
  const redacted = redactGitUrl(url);
  let out = text.split(url).join(redacted);
  const password = /^[a-z+]+:\/\/[^/@:]*:([^@/]*)@/i.exec(url)?.[1];
  if (password) out = out.split(password).join('***').split(decodeURIComponentSafe(password)).join('***');
  return out;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function refuseOptionLike(ref: string, key: string): void {
  if (ref.startsWith('-')) throw new EngineError('BAD_ARGUMENT', `${key}: a ref may not start with '-'`, { hint: 'name a branch, a tag or a commit' });
}

/** The commit a ref names; refused (file_not_found / bad_argument) naming the key. A remote's refs are listed (ls-remote), nothing is fetched. */
export async function resolveGitRef(source: GitSource, ref: string): Promise<string> {
  refuseOptionLike(ref, source.key);
  if (source.remote) return resolveRemoteRef(source, ref);
  const repository = source.location;
  const key = source.key;
  if (!existsSync(repository)) throw new EngineError('FILE_NOT_FOUND', `${key}: no repository at ${repository}`, { hint: 'check the source path' });
  const gitDir = await checkedGitDir(repository, key);
  const found = await git(['--git-dir', gitDir, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!found.ok || !/^[0-9a-f]{40,64}$/.test(found.out)) {
    throw new EngineError('BAD_ARGUMENT', `${key}: ref '${ref.slice(0, 80)}' does not name a commit in ${repository}`, {
      hint: 'name a branch, a tag or a commit the repository has',
    });
  }
  return found.out;
}

/**
 * A remote ref, the way git itself would read the name: a full commit id is
 * taken as it is (the remote proves it has it when prepare fetches), `refs/…`
 * exactly, otherwise a tag (peeled) before a branch. An abbreviated commit
 * cannot be asked of a remote and is refused.
 */
async function resolveRemoteRef(source: GitSource, ref: string): Promise<string> {
  if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(ref)) return ref;
  const listed = await git(['ls-remote', '--', source.location], { remote: source, network: true });
  if (!listed.ok)
    throw new EngineError('FILE_NOT_FOUND', `${source.key}: could not list ${source.shown}: ${listed.err}`, {
      hint: 'check the URL, the network and your credentials (ssh agent, ~/.netrc, or user:token in an https URL)',
    });
  const refs = new Map<string, string>();
  for (const line of listed.out.split('\n')) {
    const [commit, name] = line.split('\t');
    if (commit && name) refs.set(name, commit);
  }
  const candidates = ref.startsWith('refs/') || ref === 'HEAD' ? [`${ref}^{}`, ref] : [`refs/tags/${ref}^{}`, `refs/tags/${ref}`, `refs/heads/${ref}`];
  for (const name of candidates) {
    const commit = refs.get(name);
    if (commit !== undefined) return commit;
  }
  throw new EngineError('BAD_ARGUMENT', `${source.key}: ref '${ref.slice(0, 80)}' names no branch or tag of ${source.shown}`, {
    hint: /^[0-9a-f]{4,39}$/.test(ref) ? 'give a remote commit as its full id' : 'name a branch, a tag or a full commit id the repository has',
  });
}

/** Bytes a local repository's checkout at `commit` takes: the sum of its files' sizes (`ls-tree -l`), read without cloning. */
export async function checkedOutBytes(source: GitSource, commit: string): Promise<number> {
  const listed = await git(['--git-dir', await checkedGitDir(source.location, source.key), 'ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
  return listed.ok ? sumOfSizes(listed.out) : 0;
}

/** The sum of the sizes in `ls-tree -r -l -z` output (a submodule's `-` counts nothing). */
function sumOfSizes(listing: string): number {
  let bytes = 0;
  for (const line of listing.split('\0')) {
    const size = Number(line.slice(0, line.indexOf('\t')).trim().split(/\s+/)[3]);
    if (Number.isFinite(size)) bytes += size;
  }
  return bytes;
}

/**
 * The source's git directory, checked to hold its own objects: `.git` (a
 * real directory, not a file or link pointing elsewhere) or the repository
 * itself (bare), with no alternates and no `commondir` (a worktree), and no
 * link or special file where git reads (objects, refs, HEAD, config,
 * packed-refs, info). Otherwise a clone would read another repository the
 * manifest does not name — one outside the manifest's directory, or outside
 * an MCP server's roots — and a FIFO would hold git until its timeout.
 */
function ownGitDir(repository: string, key: string): string {
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
  const odd = firstLinkOrSpecial(gitDir, ['HEAD', 'config', 'config.worktree', 'packed-refs', 'shallow', 'objects', 'refs', 'info']);
  if (odd !== null)
    throw new EngineError(
      'BAD_ARGUMENT',
      `${key}: ${relative(repository, odd) || odd} in the repository is a link or a special file, which a clone would follow`,
      {
        hint: 'name a repository whose objects and refs are its own files (clone it afresh), not links into another',
      },
    );
  if (!isGitDirectory(gitDir))
    throw new EngineError('BAD_ARGUMENT', `${key}: ${repository} is not a git repository (no .git directory, and not a bare repository)`, {
      hint: 'name a clone or a bare repository, or take the folder in as an input instead',
    });
  for (const borrowed of [join(gitDir, 'objects', 'info', 'alternates'), join(gitDir, 'commondir')]) {
    if (lstatOrNull(borrowed) !== null)
      throw new EngineError('BAD_ARGUMENT', `${key}: the repository borrows objects from another (${borrowed.slice(repository.length + 1)})`, {
        hint: 'repack it with its own objects (git repack -a -d, then remove the alternates file), or clone it first',
      });
  }
  return gitDir;
}

/**
 * ownGitDir, and the source's own configuration read as data (never with its
 * includes): refused when it makes the repository partial (a promisor remote
 * git would fetch from by itself) or includes other files (which could be
 * anything on the host). What it says about hooks, fsmonitor, transports and
 * credentials is overridden on every call (SAFE, OFFLINE).
 */
async function checkedGitDir(repository: string, key: string): Promise<string> {
  const gitDir = ownGitDir(repository, key);
  // As git reads it (the repository's config and, with worktreeConfig, config.worktree: round 3 hid a promisor there),
  // its includes listed but never followed.
  const listed = await git(['--git-dir', gitDir, 'config', '--list', '--null', '--no-includes']);
  if (!listed.ok) {
    if (lstatOrNull(join(gitDir, 'config')) === null) return gitDir;
    throw new EngineError('BAD_ARGUMENT', `${key}: the repository's configuration cannot be read (${listed.err})`, {
      hint: 'name a repository whose .git/config git itself reads',
    });
  }
  const keys = listed.out
    .split('\0')
    .map((entry) => entry.split('\n')[0]!.toLowerCase())
    .filter((k) => k !== '');
  const hostile = keys.filter(
    (k) => k.startsWith('include.') || k.startsWith('includeif.') || k === 'extensions.partialclone' || /^remote\..*\.(promisor|partialclonefilter)$/.test(k),
  );
  if (hostile.length > 0)
    throw new EngineError(
      'BAD_ARGUMENT',
      `${key}: the repository's configuration sets ${[...new Set(hostile)].slice(0, 3).join(', ')}: a partial clone fetches from its remote by itself, and an include reads other files`,
      { hint: 'name a complete repository with a plain configuration (a full clone, made afresh), not a partial clone' },
    );
  return gitDir;
}

/** The first entry among `names` in `dir`, or below those that are directories, that is neither a directory nor a regular file (a link, a FIFO, a device); null when none is. */
function firstLinkOrSpecial(dir: string, names: readonly string[]): string | null {
  const pending: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const stats = lstatOrNull(path);
    if (stats === null || stats.isFile()) continue;
    if (!stats.isDirectory()) return path;
    pending.push(path);
  }
  // Entry types from readdir (no stat per entry): a repository of many loose objects is walked in one call per folder.
  while (pending.length > 0) {
    const at = pending.pop()!;
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      if (entry.isDirectory()) pending.push(join(at, entry.name));
      else if (!entry.isFile()) return join(at, entry.name);
    }
  }
  return null;
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** A host-side clone made by this module: a directory the caller reads, then removes. */
export interface HostClone {
  dir: string;
  /** True when `newer` descends from `older` in the clone (a fast-forward). */
  isAncestor(older: string, newer: string): Promise<boolean>;
  /** Blob id, mode and path of every tracked file at `commit`. */
  /** Each tracked file at `commit`: mode, blob id, path and the blob's size in bytes (ls-tree -l). */
  trackedFiles(commit: string): Promise<Array<{ mode: string; blob: string; path: string; size: number }>>;
  /** Paths added or changed (`write`) and removed (`remove`) from `older` to `newer`. */
  changedPaths(older: string, newer: string): Promise<{ write: string[]; remove: string[] }>;
  remove(): void;
}

/** True when `newer` descends from `older` in the source (a fast-forward); a remote is cloned to tell. */
export async function isFastForward(source: GitSource, older: string, newer: string): Promise<boolean> {
  if (!source.remote) return (await git(['--git-dir', await checkedGitDir(source.location, source.key), 'merge-base', '--is-ancestor', older, newer])).ok;
  // Ancestry needs the history, not the files: nothing is checked out.
  const clone = await independentClone(source, newer, { checkout: false });
  try {
    return await clone.isAncestor(older, newer);
  } finally {
    clone.remove();
  }
}

/** What a clone may write: `maxCheckoutBytes` (the workspace's storage budget) is checked against the commit's files before any is written. */
export interface CloneOptions {
  maxCheckoutBytes?: number;
  /** False: history only, no files (an ancestry check). */
  checkout?: boolean;
}

/** Clones the repository independently into a fresh temporary directory, detached at `commit`; the caller removes it. */
export async function independentClone(source: GitSource, commit: string, options: CloneOptions = {}): Promise<HostClone> {
  const key = source.key;
  if (!source.remote) await checkedGitDir(source.location, key);
  const parent = mkdtempSync(join(tmpdir(), 'hs-clone-'));
  const remove = () => rmSync(parent, { recursive: true, force: true });
  const dir = join(parent, 'clone');
  try {
    const cloned = await git(['clone', '--quiet', '--no-local', '--no-hardlinks', '--no-checkout', '--no-recurse-submodules', '--', source.location, dir], {
      remote: source,
      network: true,
    });
    if (!cloned.ok)
      throw new EngineError('BAD_ARGUMENT', `${key}: git clone of ${source.shown} failed: ${cloned.err}`, {
        hint: 'check that the source is a readable git repository',
      });
    if (existsSync(join(dir, '.git', 'objects', 'info', 'alternates'))) {
      throw new EngineError('INTERNAL', `${key}: the clone borrowed objects through an alternates file`, { hint: 'report this: clones must be independent' });
    }
    // The clone's configuration names where it came from: never with a password (it is copied into the workspace).
    if (source.remote && !(await git(['-C', dir, 'remote', 'set-url', 'origin', '--', urlForClone(source.location)])).ok)
      throw new EngineError('INTERNAL', `${key}: could not record the clone's origin without its credentials`, { hint: 'report this' });
    if (options.maxCheckoutBytes !== undefined) {
      // Before any file is written: a blob of zeros stored once and named under many paths packs small and checks out huge.
      const listed = await git(['-C', dir, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
      const bytes = listed.ok ? sumOfSizes(listed.out) : 0;
      if (bytes > options.maxCheckoutBytes)
        throw new EngineError(
          'POLICY_DENIED',
          `${key}: the checkout of ${source.shown} at ${commit} would write ${bytes} bytes, more than the workspace's storage budget (${options.maxCheckoutBytes} bytes); nothing was checked out`,
          { hint: 'raise storageBytes in the manifest, or pin a smaller commit' },
        );
    }
    const checkedOut = options.checkout === false ? { ok: true, err: '' } : await git(['-C', dir, 'checkout', '--quiet', '--detach', commit]);
    if (!checkedOut.ok)
      throw new EngineError('BAD_ARGUMENT', `${key}: checking out ${commit} of ${source.shown} failed: ${checkedOut.err}`, {
        hint: 'check the ref; a remote commit must be reachable from a branch or tag it advertises',
      });
    return {
      dir,
      remove,
      isAncestor: async (older, newer) => (await git(['-C', dir, 'merge-base', '--is-ancestor', older, newer])).ok,
      async trackedFiles(at) {
        const listed = await git(['-C', dir, 'ls-tree', '-r', '-l', '-z', '--full-tree', at]);
        if (!listed.ok) throw new EngineError('INTERNAL', `${key}: could not list the files of ${at}: ${listed.err}`, { hint: 'report this' });
        return listed.out
          .split('\0')
          .filter((l) => l !== '')
          .map((line) => {
            const [meta, path] = [line.slice(0, line.indexOf('\t')), line.slice(line.indexOf('\t') + 1)];
            // `<mode> <type> <object> <size, padded>`: a submodule's size is `-`.
            const [mode, , blob, size] = meta.trim().split(/\s+/);
            return { mode: mode!, blob: blob!, path, size: size === undefined || size === '-' ? -1 : Number(size) };
          });
      },
      async changedPaths(older, newer) {
        const diffed = await git(['-C', dir, 'diff', '--name-status', '-z', '--no-renames', older, newer]);
        if (!diffed.ok) throw new EngineError('INTERNAL', `${key}: could not compare ${older} and ${newer}: ${diffed.err}`, { hint: 'report this' });
        const fields = diffed.out.split('\0').filter((f) => f !== '');
        const write: string[] = [];
        const removed: string[] = [];
        for (let i = 0; i + 1 < fields.length; i += 2) (fields[i] === 'D' ? removed : write).push(fields[i + 1]!);
        return { write, remove: removed };
      },
    };
  } catch (error) {
    remove();
    throw error;
  }
}
