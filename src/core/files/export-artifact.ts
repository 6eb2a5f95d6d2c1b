import { createHash, randomBytes } from 'node:crypto';
import { constants, closeSync, ftruncateSync, fsyncSync, linkSync, lstatSync, openSync, renameSync, rmSync, statSync, statfsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { nextAction } from '../next-action.js';
import { EngineError } from '../errors.js';
import type { Provider, ReadStream } from '../provider.js';
import { refuseReservedHostPath } from './host-path-guard.js';
import { writeSkippingZeros } from './sparse-write.js';

/** NAME_MAX on Linux filesystems. */
const MAX_NAME_BYTES = 255;

export interface ExportResult {
  destination: string;
  sha256: string;
  size: number;
}

/** The cap on an artifact's apparent size, and what set it (named in a refusal). */
export interface ExportCap {
  maxBytes: number;
  /** e.g. "the workspace's storage_bytes budget" or "--max-bytes". */
  source: string;
  /** The caller gave this cap (not the budget's default): a suggested retry passes it on. */
  given?: boolean;
}

/**
 * Copies a workspace file to the host through a temporary file beside the
 * destination, hashing during the copy (one pass), verifies size and digest,
 * fsyncs, then publishes by atomic rename — or, without overwrite, by link(),
 * which fails atomically if the destination appeared meanwhile. The
 * destination holds the whole file or nothing; on any failure the temporary
 * file is removed.
 *
 * The workspace's content is hostile (#10 items 5, 6): an apparent size past
 * `cap` is refused before a byte is written (a 3 GiB sparse file in a 32 MiB
 * workspace once filled the host), the host's free space is checked first,
 * zero blocks are left as holes, and a link at the destination is never
 * written through nor replaced.
 */
export async function exportFile(
  provider: Provider,
  workspaceId: string,
  path: string,
  destination: string,
  options: { cap: ExportCap; expectSha256?: string; overwrite: boolean; onProgress?: (done: number, total: number) => void; beforePublish?: () => void },
): Promise<ExportResult> {
  refuseReservedHostPath(destination, 'export destination');
  const parent = dirname(destination);
  try {
    if (!statSync(parent).isDirectory()) throw new Error('not a directory');
  } catch {
    throw new EngineError('BAD_PATH', `the destination's folder ${parent} does not exist on the host`, {
      hint: 'create the folder first, or choose another destination',
    });
  }
  const existing = lstatOrNull(destination);
  // Never through, never over, a link (a planted `out -> /root/.bashrc`): refused even with --overwrite.
  if (existing?.isSymbolicLink()) {
    throw new EngineError('BAD_PATH', `${destination} is a symbolic link; export never writes through a link or replaces one`, {
      hint: 'remove the link yourself, or choose another destination',
    });
  }
  if (existing && !options.overwrite) {
    throw new EngineError('DESTINATION_EXISTS', `${destination} already exists on the host; nothing was written`, {
      hint: 'export again, replacing it',
      action: replacingExport(workspaceId, path, destination, options.cap),
    });
  }
  if (existing && !existing.isFile()) {
    throw new EngineError('NOT_A_REGULAR_FILE', `${destination} exists and is not a regular file; it will not be replaced`, {
      hint: 'remove it yourself, or choose another destination',
    });
  }
  // The `sha256:` form headspace itself prints is accepted as it is (#12 item 13).
  const expected = options.expectSha256?.toLowerCase().replace(/^sha256:/, '');
  if (expected !== undefined && !/^[0-9a-f]{64}$/.test(expected)) {
    throw new EngineError('BAD_ARGUMENT', 'the expected digest must be a sha256: 64 hexadecimal characters, with or without the sha256: prefix', {
      hint: 'copy the digest a result printed (inspect of the workspace shows it), or compute it with sha256sum',
    });
  }
  // The temporary name adds 25 bytes to the destination's: refuse a name that cannot have one
  // (found by the hostile-input suite: ENAMETOOLONG surfaced as an internal error).
  if (Buffer.byteLength(basename(destination)) > MAX_NAME_BYTES - 25) {
    throw new EngineError(
      'BAD_PATH',
      `the destination's file name is ${Buffer.byteLength(basename(destination))} bytes; export takes names of at most ${MAX_NAME_BYTES - 25} bytes`,
      { hint: 'choose a shorter destination name' },
    );
  }
  const stream = await provider.read(workspaceId, path, 1024 * 1024);
  try {
    refuseOversized(path, stream, options.cap, { workspaceId, destination, overwrite: options.overwrite });
    refuseWithoutSpace(parent, stream);
  } catch (error) {
    await stream.close();
    throw error;
  }
  const temporary = join(parent, `.${basename(destination)}.headspace-${randomBytes(6).toString('hex')}.partial`);
  let fd: number | null = null;
  try {
    try {
      fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENAMETOOLONG' || code === 'ENOTDIR') {
        throw new EngineError('BAD_PATH', `cannot write in ${parent} (${code}); nothing was written`, {
          hint: 'choose a destination in a folder you can write to',
          cause,
        });
      }
      throw cause;
    }
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of stream.chunks) {
        hash.update(chunk);
        writeSkippingZeros(fd, chunk, size);
        size += chunk.length;
        if (size > options.cap.maxBytes) refuseOversized(path, { size }, options.cap, { workspaceId, destination, overwrite: options.overwrite }); // grew during the copy
        options.onProgress?.(size, stream.size);
      }
      ftruncateSync(fd, size); // the trailing hole, if any, still counts
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      if (code === 'ENOSPC' || code === 'EDQUOT') throw noSpace(parent, stream.size, cause);
      throw cause;
    }
    fsyncSync(fd);
    closeSync(fd);
    fd = null;
    const sha256 = hash.digest('hex');
    if (size !== stream.size)
      throw new EngineError(
        'DIGEST_MISMATCH',
        `read ${size} bytes of ${path}, but the workspace reported ${stream.size}; the file changed during the export, nothing was published`,
        { hint: 'export it again once nothing writes to it' },
      );
    if (expected !== undefined && sha256 !== expected) {
      throw new EngineError('DIGEST_MISMATCH', `${path} has sha256:${sha256}, not the expected sha256:${expected}; nothing was published`, {
        hint: 'check which version of the file you expect',
      });
    }
    options.beforePublish?.();
    if (options.overwrite) renameSync(temporary, destination);
    else {
      try {
        linkSync(temporary, destination);
      } catch (cause) {
        if ((cause as NodeJS.ErrnoException).code === 'EEXIST')
          throw new EngineError('DESTINATION_EXISTS', `${destination} appeared during the export; nothing was written`, {
            hint: 'export again, replacing it',
            action: replacingExport(workspaceId, path, destination, options.cap),
          });
        throw cause;
      }
      rmSync(temporary, { force: true });
    }
    fsyncDirectory(parent);
    return { destination, sha256, size };
  } finally {
    if (fd !== null) closeSync(fd);
    rmSync(temporary, { force: true });
    await stream.close();
  }
}

/** The same export, replacing the destination, keeping a cap the caller gave (a retry that dropped it met the cap again). */
function replacingExport(workspaceId: string, name: string, to: string, cap: ExportCap) {
  return nextAction('export', { workspaceId, name, to, overwrite: true, ...(cap.given ? { maxBytes: cap.maxBytes } : {}) });
}

function refuseOversized(
  path: string,
  stream: Pick<ReadStream, 'size'>,
  cap: ExportCap,
  target: { workspaceId: string; destination: string; overwrite: boolean },
): void {
  if (stream.size <= cap.maxBytes) return;
  throw new EngineError(
    'POLICY_DENIED',
    `${path} has an apparent size of ${stream.size} bytes, past the export cap of ${cap.maxBytes} bytes (${cap.source}); nothing was written`,
    {
      hint: `export it anyway with a cap of ${stream.size} bytes (zero blocks stay holes on the host)`,
      // The retry keeps the call's overwrite: without it the suggested call met DESTINATION_EXISTS, whose retry dropped the cap.
      action: nextAction('export', {
        workspaceId: target.workspaceId,
        name: path,
        to: target.destination,
        maxBytes: stream.size,
        ...(target.overwrite ? { overwrite: true } : {}),
      }),
    },
  );
}

/** Refuses (exit 2) before writing when the destination's filesystem cannot hold what the copy will allocate. */
function refuseWithoutSpace(parent: string, stream: ReadStream): void {
  const need = Math.min(stream.size, stream.allocatedBytes ?? stream.size);
  let free: number;
  try {
    const fs = statfsSync(parent);
    free = fs.bavail * fs.bsize;
  } catch {
    return; // no statfs here: the ENOSPC mapping during the copy still applies
  }
  if (need > free) throw noSpace(parent, need, undefined, free);
}

function noSpace(parent: string, need: number, cause?: unknown, free?: number): EngineError {
  return new EngineError(
    'HOST_NO_SPACE',
    `the host filesystem of ${parent} has ${free === undefined ? 'too little' : `${free} bytes`} free; the export needs up to ${need} bytes; nothing was published`,
    {
      hint: 'free space on the host, or choose a destination on another filesystem',
      ...(cause === undefined ? {} : { cause }),
    },
  );
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** Makes the rename itself durable: without it a crash can lose a "published" file. */
function fsyncDirectory(path: string): void {
  try {
    const fd = openSync(path, constants.O_RDONLY);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some filesystems refuse fsync on a directory; the rename is still atomic.
  }
}
