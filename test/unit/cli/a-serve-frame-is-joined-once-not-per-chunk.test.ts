/**
 * A frame that arrives in many chunks is joined once it is whole, by the
 * server and by the thin client: joining the pending bytes with every chunk
 * copied a big frame over and over (quadratic), and one client sending a
 * 64 MiB header slowed every other served call to seconds (red team,
 * session 11). Counted in bytes copied, not timed.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { frame, frameReader } from '../../../src/cli/serve/serve-frames.js';

const client = createRequire(import.meta.url)('../../../bin/serve-client.cjs') as {
  frameReader: (onFrame: (type: string, body: Buffer) => void) => (chunk: Buffer) => void;
};

afterEach(() => vi.restoreAllMocks());

/** Feeds a 4 MiB frame in 4 KiB chunks (1,024 of them) and returns the bytes Buffer.concat copied and the body read. */
function bytesCopiedReading(feed: (onFrame: (type: string, body: Buffer) => void) => (chunk: Buffer) => unknown): { copied: number; body: number } {
  const bytes = frame('H', Buffer.alloc(4 * 1024 * 1024, 'x'));
  let body = -1;
  const read = feed((_type, b) => (body = b.length));
  const concat = vi.spyOn(Buffer, 'concat');
  for (let at = 0; at < bytes.length; at += 4096) read(bytes.subarray(at, at + 4096));
  const copied = concat.mock.calls.reduce((n, [list]) => n + (list as Buffer[]).reduce((m, b) => m + b.length, 0), 0);
  return { copied, body };
}

describe('a frame in many chunks', () => {
  it.each([
    ['the server', frameReader as never],
    ['the thin client', client.frameReader as never],
  ])('is copied about once by %s', (_who, feed) => {
    const { copied, body } = bytesCopiedReading(feed);
    expect(body).toBe(4 * 1024 * 1024);
    expect(copied).toBeLessThanOrEqual(2 * (4 * 1024 * 1024 + 5));
  });
});
