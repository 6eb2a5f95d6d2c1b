/**
 * Reads up to `length` bytes at `position` from an open descriptor, looping
 * over short reads; stops early at end of file (a file that shrank while
 * read). The one read loop behind the bounded file reads (a job's log for its
 * excerpt, an env file, a receipt file), which had grown a copy each.
 */
import { readSync } from 'node:fs';

export function readRange(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let at = 0;
  while (at < length) {
    const n = readSync(fd, buffer, at, length - at, position + at);
    if (n === 0) break;
    at += n;
  }
  return buffer.subarray(0, at);
}
