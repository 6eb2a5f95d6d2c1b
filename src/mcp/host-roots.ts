/**
 * Which host paths the MCP server may read (put, run's inputs, create's
 * hostPaths) and write (export). The CLI's caller is the user, so the CLI
 * takes any path; an MCP caller is a model, and over MCP `put` read
 * /etc/shadow into a workspace and `export` wrote job-controlled bytes into
 * /root as root (#10 item 6). So every host path a tool touches must lie
 * under the server's ROOTS:
 *
 * - the client's roots, when it offers the `roots` capability, narrowed to
 *   the --root folders when the operator gave any, and over HTTP always to
 *   the fallback below (roots/list, asked again after
 *   notifications/roots/list_changed; only file:// URIs count, and an empty
 *   list means none). Over stdio the client is the program that started the
 *   server, configured by the user; over HTTP it is whoever holds the token,
 *   and a red team's client answering `file:///` read /etc/shadow from a
 *   server started in /tmp without --root;
 * - otherwise the `--root DIR` values (repeatable);
 * - otherwise the directory the server was started in, unless that is `/`:
 *   then there are none and every host-path call is refused with a remedy.
 *
 * The check is on real paths: the realpath of a source, and for an export
 * destination the realpath of its folder plus a last component that must not
 * be a link, so `..` and symlinks cannot leave the roots. The tool then works
 * on that real path, not on what the caller wrote.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EngineError } from '../core/errors.js';
import { isGitMetadata } from '../core/files/git-directory.js';

/** The roots in force and where they came from (named in every refusal). */
export interface RootSet {
  /** Absolute directories; [] means no host path is allowed at all. */
  dirs: readonly string[];
  origin: 'client' | 'flag' | 'cwd' | 'cwd-is-root';
  /** The folders the client's roots were narrowed to: the operator's --root, or (over HTTP) the fallback roots. */
  ceiling?: readonly string[];
  /** Where the ceiling came from, as `origin` says of the fallback. */
  ceilingOrigin?: 'flag' | 'cwd' | 'cwd-is-root';
}

/** Checks host paths a tool call is about to touch, returning the real path it may use. */
export interface HostPathGuard {
  /** A host file or directory to read: its real path, under a root. */
  readable(hostPath: string): Promise<string>;
  /** A host file to create or replace: real folder + last component (not a link), under a root. */
  writable(hostPath: string): Promise<string>;
}

/** The roots when the client offers none: --root values, else `cwd` unless it is `/`. */
export function fallbackRoots(flagRoots: readonly string[], cwd: string): RootSet {
  // Resolved once, here: a root is the folder it named when the server started, whatever is renamed over it later.
  if (flagRoots.length > 0) return { dirs: flagRoots.map((dir) => realpathOrNull(resolve(cwd, dir)) ?? resolve(cwd, dir)), origin: 'flag' };
  const here = realpathOrNull(resolve(cwd)) ?? resolve(cwd);
  return here === sep ? { dirs: [], origin: 'cwd-is-root' } : { dirs: [here], origin: 'cwd' };
}

/** The client's roots/list answer as directories: file:// URIs only; anything else is ignored. */
export function rootSetFromClient(roots: ReadonlyArray<{ uri: string }>): RootSet {
  const dirs: string[] = [];
  for (const root of roots) {
    if (!root.uri.startsWith('file://')) continue;
    try {
      // Pinned to its real path when listed; a root that does not exist then is none (red team round 2: a client named
      // a missing folder under the server's, made it a link to /etc, and the check resolved the link on each call).
      const real = realpathOrNull(fileURLToPath(root.uri));
      if (real !== null) dirs.push(real);
    } catch {
      // A file URI with a host part or an encoded slash: not a local directory.
    }
  }
  return { dirs, origin: 'client' };
}

/** True when `path` is `root` or lies below it (both absolute and normalised). */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  return path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/** Builds the guard for one tool call; `current` yields the roots in force (asked lazily, once per check). */
export function hostPathGuard(current: () => Promise<RootSet>, cwd: string, toolName: string): HostPathGuard {
  return {
    async readable(hostPath) {
      const set = await current();
      const lexical = absolute(hostPath, cwd);
      const real = realpathOrNull(lexical);
      const roots = realRoots(set);
      if (real === null) {
        // Say "outside" before "missing": existence of a path outside the roots is not the caller's to learn.
        if (!roots.some((root) => isWithin(lexical, root))) throw outsideRoots(toolName, hostPath, lexical, set);
        throw new EngineError('FILE_NOT_FOUND', `no file or directory at ${hostPath} on the host`, {
          hint: `check the spelling; paths are resolved from ${cwd}`,
        });
      }
      if (!roots.some((root) => isWithin(real, root))) throw outsideRoots(toolName, hostPath, real, set);
      refuseGitMetadata(toolName, hostPath, real, roots);
      return real;
    },
    async writable(hostPath) {
      const set = await current();
      const lexical = absolute(hostPath, cwd);
      // A destination ending in / names a folder the file goes into under its own name (export's rule). resolve()
      // drops that slash, which turned `out/` for a missing folder into a file named `out`, where the CLI refuses.
      if (hostPath.endsWith('/')) return intoFolder(hostPath, lexical, set);
      const name = basename(lexical);
      const folder = realpathOrNull(dirname(lexical));
      const roots = realRoots(set);
      if (folder === null) {
        if (!roots.some((root) => isWithin(dirname(lexical), root))) throw outsideRoots(toolName, hostPath, lexical, set);
        throw new EngineError('BAD_PATH', `the destination's folder ${dirname(hostPath)} does not exist on the host`, {
          hint: 'create the folder first, or choose another destination',
        });
      }
      if (name === '') throw new EngineError('BAD_PATH', `${hostPath} names no file`, { hint: 'give a file path under one of the roots' });
      const real = join(folder, name);
      if (!roots.some((root) => isWithin(real, root) && real !== root)) throw outsideRoots(toolName, hostPath, real, set);
      if (isSymlink(real)) {
        throw new EngineError('NOT_A_REGULAR_FILE', `${hostPath} is a symbolic link; ${toolName} never writes through or over a link`, {
          hint: 'remove the link or choose another destination',
        });
      }
      refuseGitMetadata(toolName, hostPath, real, roots);
      return real;
    },
  };

  /** A folder destination (`dir/`): it must exist, be a folder under a root (the root itself too), and keep its slash. */
  function intoFolder(hostPath: string, lexical: string, set: RootSet): string {
    const roots = realRoots(set);
    const folder = realpathOrNull(lexical);
    if (folder === null) {
      if (!roots.some((root) => isWithin(lexical, root))) throw outsideRoots(toolName, hostPath, lexical, set);
      throw new EngineError('BAD_PATH', `${hostPath} names a folder that does not exist on the host; nothing was written`, {
        hint: 'create the folder first, or give a file path (without the trailing /)',
      });
    }
    if (!roots.some((root) => isWithin(folder, root))) throw outsideRoots(toolName, hostPath, folder, set);
    refuseGitMetadata(toolName, hostPath, folder, roots);
    return `${folder}/`;
  }
}

/**
 * A `.git` folder under a root is the user's git metadata, not the project:
 * its config and hooks run commands on the user's next git call, and its
 * config may hold a token. An agent neither reads nor writes it (red team
 * round 2: an MCP export over `.git/config` with overwrite set core.fsmonitor).
 */
function refuseGitMetadata(toolName: string, given: string, real: string, roots: readonly string[]): void {
  const root = roots.find((r) => isWithin(real, r)) ?? sep;
  // The root, each folder below it on the way, and the path itself: a `.git` name, or a git directory by git's own
  // test whatever its name (round 3 rewrote proj/.bare/config, a bare-plus-worktrees layout's metadata).
  let at = root;
  const steps = [root];
  for (const part of real
    .slice(root.length)
    .split(sep)
    .filter((p) => p !== ''))
    steps.push((at = join(at, part)));
  if (!steps.some((path) => isGitMetadata(path, basename(path)))) return;
  throw new EngineError(
    'POLICY_DENIED',
    `host path ${given} is inside a .git folder or another git directory, the user's git metadata; ${toolName} over MCP never reads or writes it`,
    {
      hint: "name the project's own files; take a repository in with a manifest's repositories entry (a clone at a ref)",
    },
  );
}

/** One line naming the roots and where they came from, for refusals and the learn text. */
export function describeRoots(set: RootSet): string {
  switch (set.origin) {
    case 'client': {
      const within = set.ceiling === undefined ? '' : ` (within ${ceilingWords(set)})`;
      return set.dirs.length === 0 ? `the client offered no file:// roots${within}` : `the client's roots: ${set.dirs.join(', ')}${within}`;
    }
    case 'flag':
      return `--root: ${set.dirs.join(', ')}`;
    case 'cwd':
      return `the directory the server started in: ${set.dirs.join(', ')}`;
    case 'cwd-is-root':
      return 'none: the server started in / and was given no --root';
  }
}

/** The ceiling as a refusal names it: `--root: X`, or the folder an HTTP server started in. */
function ceilingWords(set: RootSet): string {
  const dirs = (set.ceiling ?? []).join(', ');
  if (set.ceilingOrigin === 'cwd') return `the directory the server started in: ${dirs}`;
  if (set.ceilingOrigin === 'cwd-is-root') return 'no folder: the server started in / and was given no --root';
  return `--root: ${dirs}`;
}

function outsideRoots(toolName: string, given: string, real: string, set: RootSet): EngineError {
  const resolved = real === given ? '' : ` (it resolves to ${real})`;
  // A path outside the operator's --root ceiling stays refused whatever the client adds: saying "add a root in the
  // client" there sent a user round a loop of client settings that could not help.
  const beyondCeiling = set.ceiling !== undefined && !set.ceiling.some((top) => isWithin(real, realpathOrNull(top) ?? top));
  const remedy =
    set.origin === 'client' && !beyondCeiling
      ? 'use a path under one of the roots, or add the folder as a root in the MCP client'
      : beyondCeiling
        ? `use a path under one of the roots; ${set.ceilingOrigin === 'flag' || set.ceilingOrigin === undefined ? `the server's --root (${set.ceiling!.join(', ')})` : `over HTTP, ${ceilingWords(set)}`} bounds every client root, so a folder outside it needs the server restarted with a --root that holds it`
        : 'use a path under one of the roots, or restart the server with `headspace mcp --root DIR` (repeatable) naming the folders it may use';
  if (set.dirs.length === 0) {
    return new EngineError('POLICY_DENIED', `${toolName} touches host paths only under the MCP server's roots, and it has none (${describeRoots(set)})`, {
      hint: remedy,
    });
  }
  return new EngineError(
    'POLICY_DENIED',
    `host path ${given}${resolved} is outside the MCP server's roots (${describeRoots(set)}); nothing was read or written`,
    { hint: remedy },
  );
}

function absolute(hostPath: string, cwd: string): string {
  if (typeof hostPath !== 'string' || hostPath === '' || hostPath.includes('\0'))
    throw new EngineError('BAD_ARGUMENT', 'a host path must be a non-empty string without NUL', {
      hint: 'give an absolute host path under one of the roots, e.g. /home/me/project/data.csv',
    });
  return resolve(cwd, hostPath);
}

/** The roots as they were resolved when they were set (fallbackRoots, rootSetFromClient, narrowToCeiling): never again at a check. */
function realRoots(set: RootSet): readonly string[] {
  return set.dirs;
}

function realpathOrNull(path: string): string | null {
  try {
    return realpathSync.native(path);
  } catch {
    return null;
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The roots in force for one connection: the client's (asked with
 * roots/list on first use, cached until notifications/roots/list_changed)
 * when it declared the `roots` capability, else `fallback`. A client that
 * declares roots but cannot answer gets a refusal, never the fallback:
 * failing open would widen what a model may touch.
 */
export interface RootsTracker {
  current(ask: () => Promise<ReadonlyArray<{ uri: string }>>): Promise<RootSet>;
  /** Forget the client's answer (its list changed). */
  invalidate(): void;
}

/**
 * The client's roots narrowed to the operator's --root folders (red team
 * round 3): over a shared HTTP server any token holder could answer
 * roots/list with `file:///` and then read /etc/shadow or write /root. Each
 * client root inside a --root folder stays; a --root folder inside a client
 * root stays; nothing else does. Compared as real paths.
 */
export function narrowToCeiling(client: RootSet, ceiling: readonly string[]): RootSet {
  const real = (dir: string) => {
    try {
      return realpathSync(dir);
    } catch {
      return resolve(dir);
    }
  };
  const tops = ceiling.map(real);
  const dirs = new Set<string>();
  // client.dirs are real already (rootSetFromClient).
  for (const dir of client.dirs) {
    for (const top of tops) {
      if (isWithin(dir, top)) dirs.add(dir);
      else if (isWithin(top, dir)) dirs.add(top);
    }
  }
  return { dirs: [...dirs], origin: 'client', ceiling: [...ceiling] };
}

/**
 * `bounded`: the client's roots are always narrowed to the fallback roots
 * (an HTTP server's client is any token holder, not the operator); otherwise
 * only to an operator's --root.
 */
export function trackRoots(clientOffersRoots: () => boolean, fallback: RootSet, options: { bounded?: boolean } = {}): RootsTracker {
  let cached: Promise<RootSet> | null = null;
  const ceilingOrigin = fallback.origin === 'client' ? undefined : fallback.origin;
  const ceiling = fallback.origin === 'flag' || (options.bounded === true && ceilingOrigin !== undefined) ? fallback.dirs : null;
  return {
    current(ask) {
      if (!clientOffersRoots()) return Promise.resolve(fallback);
      if (cached === null) {
        // An operator's --root (over HTTP, the fallback roots) is a ceiling the client cannot widen.
        const fromClient = (roots: ReadonlyArray<{ uri: string }>): RootSet =>
          ceiling === null ? rootSetFromClient(roots) : { ...narrowToCeiling(rootSetFromClient(roots), ceiling), ceilingOrigin: ceilingOrigin! };
        const asked = ask().then(fromClient, (cause: unknown) => {
          if (cached === asked) cached = null;
          throw new EngineError(
            'POLICY_DENIED',
            `the MCP client declared roots but did not list them (${briefly(cause)}); no host path is allowed without them`,
            {
              hint: 'answer roots/list in the client, or connect without the roots capability and start the server with --root DIR',
              cause,
            },
          );
        });
        cached = asked;
      }
      return cached;
    },
    invalidate() {
      cached = null;
    },
  };
}

/** One short line of a failure from the client (a zod dump can run to many lines). */
function briefly(cause: unknown): string {
  const text = (cause instanceof Error ? cause.message : String(cause)).replace(/\s+/g, ' ').trim();
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}
