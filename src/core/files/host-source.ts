import { constants, closeSync, fstatSync, lstatSync, openSync, readdirSync, readSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { EngineError } from '../errors.js';

export interface HostFile {
  /** Path relative to the source root, with `/` separators ('' for a single file). */
  relative: string;
  absolute: string;
  size: number;
}

export interface HostSource {
  kind: 'file' | 'directory';
  files: HostFile[];
  totalBytes: number;
}

/**
 * Walks a host file or directory that is about to enter a workspace, without
 * following anything: a symlink, device, FIFO or socket anywhere in it is
 * refused by name (a link could smuggle a host secret in; a FIFO could hang
 * the copy forever).
 */
export function scanHostSource(hostPath: string): HostSource {
  let top;
  try {
    top = lstatSync(hostPath);
  } catch {
    throw new EngineError('FILE_NOT_FOUND', `no file or directory at ${hostPath} on the host`, { hint: 'check the host path' });
  }
  if (top.isFile()) return { kind: 'file', files: [{ relative: '', absolute: hostPath, size: top.size }], totalBytes: top.size };
  if (!top.isDirectory()) throw refuse(hostPath, top);
  const files: HostFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const absolute = join(dir, name);
      const stat = lstatSync(absolute);
      if (stat.isDirectory()) walk(absolute);
      else if (stat.isFile()) files.push({ relative: relative(hostPath, absolute).split(sep).join('/'), absolute, size: stat.size });
      else throw refuse(absolute, stat);
    }
  };
  walk(hostPath);
  return { kind: 'directory', files, totalBytes: files.reduce((n, f) => n + f.size, 0) };
}

function refuse(path: string, stat: Stats): EngineError {
  const what = stat.isSymbolicLink() ? 'a symbolic link' : stat.isFIFO() ? 'a FIFO' : stat.isSocket() ? 'a socket' : stat.isCharacterDevice() || stat.isBlockDevice() ? 'a device' : 'not a regular file';
  return new EngineError('NOT_A_REGULAR_FILE', `${path} is ${what}; only regular files and directories can enter a workspace`, {
    hint: 'copy the real file instead of a link, or leave it out',
  });
}

/**
 * Reads a regular file without following a link planted after the scan
 * (O_NOFOLLOW, then fstat on the open descriptor), up to `expectedSize`.
 */
export function readHostFile(file: HostFile): Buffer {
  let fd: number;
  try {
    fd = openSync(file.absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (cause) {
    throw new EngineError('NOT_A_REGULAR_FILE', `${file.absolute} could not be opened as a regular file (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, { cause });
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new EngineError('NOT_A_REGULAR_FILE', `${file.absolute} changed into something other than a regular file`);
    const buffer = Buffer.alloc(stat.size);
    let at = 0;
    while (at < stat.size) {
      const n = readSync(fd, buffer, at, stat.size - at, at);
      if (n === 0) break;
      at += n;
    }
    return buffer.subarray(0, at);
  } finally {
    closeSync(fd);
  }
}
