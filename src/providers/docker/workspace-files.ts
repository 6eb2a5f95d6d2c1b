/**
 * Workspace files in and out through the Engine's archive API, with the
 * same refusals as the native provider's safe-fs: the workspace content is
 * hostile (a job plants links, FIFOs, devices where it likes).
 *
 * The engine resolves a path's symlinks itself, scoped to the container's
 * root — safe for the host, but not what we promise: a link must never be
 * followed at all. So every component is stat'ed first, one HEAD request
 * each (docker's stat does not follow the last component), and a link, a
 * non-directory parent or a special file is refused before any byte moves;
 * the archive's own header is then checked again (a job may have swapped
 * the entry in between: the worst it can reach is its own container).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { EngineError, inputRef, ProviderError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { clippedPath, nameText } from '../../core/name-text.js';
import { normalizeWorkspacePath, pathComponents } from '../../core/paths.js';
import type { FileEntry, ReadStream, WriteOptions } from '../../core/provider.js';
import type { JobUser } from '../../core/job-identity.js';
import { isEngineSilence } from './answer-bounds.js';
import { controlExec, getArchive, kindOfMode, putArchive, statPath, type Engine, type StatKind } from './engine-client.js';
import { WORKSPACE_DIR } from './plan-container.js';
import { TarReader, writeTar, type TarHeader, type TarWriteEntry } from './tar.js';

const DEFAULT_CHUNK = 64 * 1024;
/** A listing stops (truncated) past this many bytes of path text, as native's does. */
const LIST_MAX_PATH_BYTES = 16 * 1024 * 1024;
/**
 * An archive read only for its headers (a listing, a kind looked up through
 * an ancestor) still streams every file's data through the engine, and a
 * file's apparent size: a 0-byte sparse file of 20 GiB streams 20 GiB of
 * zeros, on the host's cpu and outside every budget (#19 item 3). The engine
 * has no listing without the data (a HEAD stats one path only), so such a
 * read stops once the data it would stream passes the workspace's storage
 * budget or this cap, whichever is smaller, and is refused.
 */
export const ARCHIVE_SCAN_MAX_BYTES = 1024 * 1024 * 1024;

/**
 * Counts the bytes the engine streams for the headers seen of the archive of
 * `base` (workspace-relative components); throws before the data that would
 * pass `bound`, naming the file by its workspace path.
 */
export function archiveScanBound(base: readonly Buffer[], bound: number): (header: TarHeader) => void {
  let streamed = 0;
  const rel = nameText(joinParts(base));
  return (header) => {
    streamed += 512 + Math.ceil(header.size / 512) * 512;
    if (streamed <= bound) return;
    const name = nameText(joinParts([...base, withoutFirst(header.name)].filter((p) => p.length > 0)));
    throw new EngineError(
      'POLICY_DENIED',
      `listing '${clippedPath(rel) || '.'}' would stream more than ${bound} bytes through the engine, which sends every file's data, to its apparent size: '${clippedPath(name)}' reads as ${header.size} bytes (a sparse file counts whole); nothing was listed`,
      {
        hint: `list a narrower path that leaves '${clippedPath(name)}' out (the bound is the workspace's storage budget or ${ARCHIVE_SCAN_MAX_BYTES} bytes, whichever is smaller), or remove that file with a job`,
      },
    );
  };
}

/** A directory named where a file was wanted: name one of its files (from its listing), or pack it into one. */
function directoryRefusal(rel: string): EngineError {
  return new EngineError('NOT_A_REGULAR_FILE', `'${clippedPath(rel)}' is a directory`, {
    hint: 'to move a whole directory, pack it into one file first (tar); otherwise name a file inside it, from its listing',
    action: nextAction('ls-files', { path: rel }, ['workspaceId']),
  });
}

function badPath(rel: string, why: string): EngineError {
  return new EngineError('BAD_PATH', `'${clippedPath(rel)}' ${why}`, { hint: 'symbolic links are never followed by host-side file operations' });
}

function notFound(rel: string): EngineError {
  return new EngineError('FILE_NOT_FOUND', `'${clippedPath(rel)}' does not exist in the workspace`, {
    hint: 'paths are relative to /workspace; see what is there',
    action: nextAction('ls-files', {}, ['workspaceId']),
  });
}

function notRegular(rel: string, kind: StatKind): EngineError {
  if (kind === 'symlink') return badPath(rel, 'is a symbolic link');
  if (kind === 'directory') return directoryRefusal(rel);
  const what = kind === 'socket' ? 'a socket' : kind === 'fifo' ? 'a FIFO' : kind === 'device' ? 'a device' : 'not a regular file';
  return new EngineError('NOT_A_REGULAR_FILE', `'${clippedPath(rel)}' is ${what} in the workspace`, {
    hint: 'only regular files can be exported or read; have the job write its result to a regular file',
  });
}

function absolute(parts: readonly Buffer[]): Buffer {
  return Buffer.concat([Buffer.from(WORKSPACE_DIR), ...parts.flatMap((p) => [Buffer.from('/'), p])]);
}

function isUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);
}

function joinParts(parts: readonly Buffer[]): Buffer {
  return Buffer.concat(parts.flatMap((p, k) => (k === 0 ? [p] : [Buffer.from('/'), p])));
}

/** An archive entry's name without its first component (the directory the archive was made of). */
function withoutFirst(name: Buffer): Buffer {
  const slash = name.indexOf(0x2f);
  return slash < 0 ? Buffer.alloc(0) : name.subarray(slash + 1);
}

function compareParts(a: Buffer[], b: Buffer[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = Buffer.compare(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

export interface WorkspaceFiles {
  read(path: string, chunkBytes?: number): Promise<ReadStream>;
  write(path: string, data: Buffer, options: WriteOptions): Promise<void>;
  remove(path: string): Promise<void>;
  list(path: string, limit: number): Promise<{ entries: FileEntry[]; truncated: boolean }>;
  isDirectory(path: string): Promise<boolean>;
}

export function workspaceFiles(engine: Engine, containerId: string, owner: JobUser, storageBytes: number): WorkspaceFiles {
  const scanBound = Math.max(0, Math.min(storageBytes, ARCHIVE_SCAN_MAX_BYTES));
  /**
   * The kind of each component of `parts`, parents first (all must be real
   * directories), stopping at the first that does not exist (`missingFrom`).
   * A name that is not UTF-8 cannot be named to the engine (it answers for
   * its U+FFFD look-alike instead), so from the first such component on the
   * kinds are read from the headers of the nearest addressable ancestor's
   * archive, where names are bytes.
   */
  async function walk(rel: string, parts: Buffer[]): Promise<{ last?: StatKind; missingFrom: number }> {
    const direct = parts.findIndex((p) => !isUtf8(p));
    const statable = direct < 0 ? parts.length : direct;
    const check = (kind: StatKind, i: number) => {
      if (kind === 'symlink') throw badPath(rel, `passes through a symbolic link (component ${i + 1})`);
      if (kind !== 'directory') throw badPath(rel, `has a component that is not a directory (component ${i + 1})`);
    };
    for (let i = 0; i < statable; i++) {
      const stat = await statPath(engine, containerId, absolute(parts.slice(0, i + 1)));
      if (stat === undefined) return { missingFrom: i };
      const kind = kindOfMode(stat.mode);
      if (i === parts.length - 1) return { last: kind, missingFrom: parts.length };
      check(kind, i);
    }
    const kinds = await kindsViaAncestor(parts.slice(0, statable), parts.slice(statable));
    for (let i = statable; i < parts.length; i++) {
      const kind = kinds[i - statable];
      if (kind === undefined) return { missingFrom: i };
      if (i === parts.length - 1) return { last: kind, missingFrom: parts.length };
      check(kind, i);
    }
    return { missingFrom: 0 };
  }

  /** Kinds of base/rest[0], base/rest[0]/rest[1], …, read from base's archive headers (undefined: absent). */
  async function kindsViaAncestor(base: Buffer[], rest: Buffer[]): Promise<Array<StatKind | undefined>> {
    const wanted = rest.map((_, i) => joinParts(rest.slice(0, i + 1)).toString('latin1'));
    const kinds: Array<StatKind | undefined> = rest.map(() => undefined);
    const stream = await getArchive(engine, containerId, absolute(base));
    const charge = archiveScanBound(base, scanBound);
    try {
      const reader = new TarReader(stream as AsyncIterable<Buffer>);
      for (let header = await reader.next(); header !== undefined; header = await reader.next()) {
        charge(header);
        const inner = withoutFirst(header.name).toString('latin1');
        const at = wanted.indexOf(inner);
        if (at >= 0) kinds[at] = header.type === 'hardlink' ? 'file' : header.type === 'other' ? 'other' : header.type;
        if (at === wanted.length - 1) break;
      }
    } finally {
      stream.destroy();
    }
    return kinds;
  }

  /** The archive positioned at the file `parts` names; through an ancestor when a name is not UTF-8. */
  async function openFile(rel: string, parts: Buffer[]): Promise<{ stream: Readable; reader: TarReader; header: TarHeader | undefined }> {
    const direct = parts.findIndex((p) => !isUtf8(p));
    const base = direct < 0 ? parts : parts.slice(0, direct);
    const stream = await openArchive(rel, base);
    const reader = new TarReader(stream as AsyncIterable<Buffer>);
    try {
      if (direct < 0) return { stream, reader, header: await reader.next() };
      const target = joinParts(parts.slice(direct)).toString('latin1');
      const charge = archiveScanBound(base, scanBound);
      for (let header = await reader.next(); header !== undefined; header = await reader.next()) {
        if (withoutFirst(header.name).toString('latin1') === target) return { stream, reader, header };
        charge(header);
      }
      return { stream, reader, header: undefined };
    } catch (error) {
      stream.destroy();
      if (error instanceof EngineError) throw error;
      throw new ProviderError(`the engine's archive of '${clippedPath(rel)}' is unreadable: ${(error as Error).message}`, {
        hint: 'try again once no job is writing there; doctor checks the docker provider',
        action: nextAction('doctor', { provider: 'docker' }),
      });
    }
  }

  async function openArchive(rel: string, parts: Buffer[]): Promise<Readable> {
    try {
      return await getArchive(engine, containerId, absolute(parts));
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode === 404) throw notFound(rel);
      throw new ProviderError(`the engine could not read '${clippedPath(rel)}': ${(error as Error).message.slice(0, 200)}`, {
        hint: 'doctor checks the docker provider',
        action: nextAction('doctor', { provider: 'docker' }),
        cause: error,
      });
    }
  }

  return {
    async read(path, chunkBytes = DEFAULT_CHUNK) {
      const rel = normalizeWorkspacePath(path);
      const parts = pathComponents(rel);
      const { last } = await walk(rel, parts);
      if (last === undefined) throw notFound(rel);
      if (last !== 'file') throw notRegular(rel, last);
      const { stream, reader, header } = await openFile(rel, parts);
      if (header === undefined) {
        stream.destroy();
        throw notFound(rel);
      }
      if (header.type !== 'file') {
        stream.destroy();
        throw notRegular(rel, header.type === 'directory' ? 'directory' : header.type === 'symlink' ? 'symlink' : 'other');
      }
      let closed = false;
      return {
        size: header.size,
        chunks: reader.data(Math.max(1, chunkBytes)),
        async close() {
          if (closed) return;
          closed = true;
          stream.destroy();
        },
      };
    },

    async write(path, data, options) {
      const rel = normalizeWorkspacePath(path);
      const parts = pathComponents(rel);
      const actual = createHash('sha256').update(data).digest('hex');
      if (actual !== options.expectedSha256) {
        throw new EngineError(
          'DIGEST_MISMATCH',
          `the bytes for '${clippedPath(rel)}' have sha256:${actual}, not the expected sha256:${options.expectedSha256.slice(0, 64)}; nothing was written`,
          { hint: 'the source changed while it was copied; copy it again' },
        );
      }
      // The volume has no size cap (storage is measured on docker): one file past the whole budget is refused outright.
      if (data.length > storageBytes) {
        throw new EngineError(
          'POLICY_DENIED',
          `'${clippedPath(rel)}' (${data.length} bytes) is larger than the workspace's storage budget (${storageBytes} bytes); it was not written`,
          { hint: `create the workspace with a larger ${inputRef('budget.storageBytes')} budget`, inputsOf: 'create' },
        );
      }
      const { last, missingFrom } = await walk(rel, parts);
      if (last !== undefined) {
        if (last === 'directory') throw directoryRefusal(rel);
        if (!options.overwrite)
          throw new EngineError('DESTINATION_EXISTS', `'${clippedPath(rel)}' already exists`, {
            hint: 'write it again with overwrite to replace it, or choose another destination',
          });
      }
      // Extracted where the existing tree ends: the missing directories, then the file, all owned by the job user.
      // The engine can address only UTF-8 names: a base past one would land in its look-alike.
      const firstRaw = parts.findIndex((p) => !isUtf8(p));
      const base = parts.slice(0, Math.min(missingFrom, parts.length - 1, firstRaw < 0 ? parts.length : firstRaw));
      const entries: TarWriteEntry[] = [];
      for (let i = base.length; i < parts.length - 1; i++)
        entries.push({ name: joinParts(parts.slice(base.length, i + 1)), type: 'directory', mode: 0o755, ...owner });
      entries.push({ name: joinParts(parts.slice(base.length)), type: 'file', mode: 0o644, ...owner, data });
      try {
        await putArchive(engine, containerId, absolute(base), writeTar(entries));
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status === 404) throw notFound(rel);
        if (status === 400 || status === 403) throw badPath(rel, `could not be written: ${(error as Error).message.slice(0, 160)}`);
        throw new ProviderError(`the engine could not write '${clippedPath(rel)}': ${(error as Error).message.slice(0, 200)}`, {
          hint: 'doctor checks the docker provider',
          action: nextAction('doctor', { provider: 'docker' }),
          cause: error,
        });
      }
    },

    async remove(path) {
      const rel = normalizeWorkspacePath(path);
      const parts = pathComponents(rel);
      // A missing parent is a missing path (no error); a link in the way still is one.
      const { last } = await walk(rel, parts);
      if (last === undefined) return;
      // No delete in the archive API: an exec as the job user, the path passed as octal escapes so any bytes cross.
      const escaped = [...absolute(parts)].map((b) => `\\0${b.toString(8).padStart(3, '0')}`).join('');
      const result = await controlExec(engine, containerId, {
        cmd: ['/bin/sh', '-c', 'p=$(printf "%b/" "$1"); rm -rf -- "${p%/}"', 'headspace-remove', escaped],
        env: [],
        user: `${owner.uid}:${owner.gid}`,
        workingDir: '/',
      });
      if (result.exitCode !== 0)
        throw new ProviderError(`removing '${clippedPath(rel)}' failed: ${result.stderr.trim().slice(0, 200)}`, {
          hint: 'a running job may hold it; try again once it has finished',
        });
    },

    async list(path, limit) {
      const rel = normalizeWorkspacePath(path, { allowRoot: true });
      const parts = pathComponents(rel);
      if (parts.length > 0) {
        const { last } = await walk(rel, parts);
        if (last === undefined) throw notFound(rel);
        if (last === 'symlink') throw badPath(rel, 'is a symbolic link');
        if (last !== 'directory')
          throw new EngineError('NOT_A_REGULAR_FILE', `'${clippedPath(rel)}' is not a directory`, { hint: 'it is a file: list the directory that holds it' });
      }
      // Through the nearest ancestor the engine can address when a name is not UTF-8, keeping only what is under `rel`.
      const firstRaw = parts.findIndex((p) => !isUtf8(p));
      const base = firstRaw < 0 ? parts : parts.slice(0, firstRaw);
      const under = firstRaw < 0 ? undefined : Buffer.concat([joinParts(parts.slice(firstRaw)), Buffer.from('/')]);
      const stream = await openArchive(rel, base);
      const reader = new TarReader(stream as AsyncIterable<Buffer>);
      const found: Array<{ parts: Buffer[]; type: FileEntry['type']; size: number }> = [];
      let pathBytes = 0;
      let truncated = false;
      const charge = archiveScanBound(base, scanBound);
      try {
        for (let header = await reader.next(); header !== undefined; header = await reader.next()) {
          charge(header);
          const inner = withoutFirst(header.name);
          if (inner.length === 0) continue; // the listed directory itself
          if (under !== undefined && !(inner.length > under.length && inner.subarray(0, under.length).equals(under))) continue;
          const full = [
            ...base,
            ...inner
              .toString('latin1')
              .split('/')
              .map((n) => Buffer.from(n, 'latin1')),
          ];
          // A hard link is a second name of a regular file.
          const type: FileEntry['type'] = header.type === 'hardlink' ? 'file' : header.type;
          found.push({ parts: full, type, size: type === 'file' ? header.size : 0 });
          pathBytes += header.name.length;
          if (pathBytes > LIST_MAX_PATH_BYTES) {
            truncated = true;
            break;
          }
        }
      } finally {
        stream.destroy();
      }
      found.sort((a, b) => compareParts(a.parts, b.parts));
      const entries = found.slice(0, Math.max(0, limit)).map((e) => ({ path: nameText(joinParts(e.parts)), type: e.type, size: e.size }));
      return { entries, truncated: truncated || found.length > limit };
    },

    async isDirectory(path) {
      const rel = normalizeWorkspacePath(path, { allowRoot: true });
      const parts = pathComponents(rel);
      if (parts.length === 0) return true;
      const { last } = await walk(rel, parts).catch((error: unknown) => {
        // An engine that did not answer says nothing of the path: not "no such directory".
        if (isEngineSilence(error)) throw error;
        return { last: undefined };
      });
      return last === 'directory';
    },
  };
}
