import { writeSync } from 'node:fs';

/** The granule for hole detection: ext4's block size, so a zero block is never allocated. */
export const HOLE_BLOCK_BYTES = 4096;
const ZERO = Buffer.alloc(HOLE_BLOCK_BYTES);

/**
 * Writes `chunk` at `position` of `fd`, skipping every all-zero block, so a
 * sparse source stays sparse on the host (#10 item 5: a 3 GiB sparse file
 * was written dense). Node has no SEEK_DATA/SEEK_HOLE, so holes are found by
 * content; the caller truncates the file to its full size at the end so a
 * trailing hole still counts. Returns the bytes actually written.
 */
export function writeSkippingZeros(fd: number, chunk: Buffer, position: number): number {
  let written = 0;
  let runStart = -1;
  const flush = (end: number) => {
    if (runStart < 0) return;
    let at = runStart;
    while (at < end) at += writeSync(fd, chunk, at, end - at, position + at);
    written += end - runStart;
    runStart = -1;
  };
  for (let offset = 0; offset < chunk.length; offset += HOLE_BLOCK_BYTES) {
    const end = Math.min(offset + HOLE_BLOCK_BYTES, chunk.length);
    const zero = chunk.subarray(offset, end).equals(end - offset === HOLE_BLOCK_BYTES ? ZERO : ZERO.subarray(0, end - offset));
    if (zero) flush(offset);
    else if (runStart < 0) runStart = offset;
  }
  flush(chunk.length);
  return written;
}
