import type { ReadStream } from '../provider.js';

/** A file's bytes from a provider stream, or null past `maxBytes` (the stream is closed either way). */
export async function readWhole(open: Promise<ReadStream>, maxBytes: number): Promise<Buffer | null> {
  const stream = await open;
  try {
    if (stream.size > maxBytes) return null;
    const parts: Buffer[] = [];
    let total = 0;
    for await (const chunk of stream.chunks) {
      total += chunk.length;
      if (total > maxBytes) return null;
      parts.push(chunk);
    }
    return Buffer.concat(parts);
  } finally {
    await stream.close();
  }
}
