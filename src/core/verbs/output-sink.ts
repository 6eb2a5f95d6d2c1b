import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { OutputStream } from '../provider.js';

/**
 * Receives a job's output: keeps at most `budget` bytes in the log file,
 * counts every byte (so a result can say how much was printed in all), and
 * calls `onOverflow` once when the budget is passed.
 */
export interface OutputSink {
  write(stream: OutputStream, chunk: Buffer): void;
  close(): void;
  readonly totalBytes: number;
  readonly storedBytes: number;
  readonly streamBytes: Record<OutputStream, number>;
}

export function openOutputSink(path: string, budget: number, onOverflow: () => void): OutputSink {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, 'w', 0o600);
  let total = 0;
  let stored = 0;
  let overflowed = false;
  let closed = false;
  const streamBytes: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  return {
    write(stream, chunk) {
      total += chunk.length;
      streamBytes[stream] += chunk.length;
      if (closed) return;
      const room = budget - stored;
      if (room > 0) {
        const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
        writeSync(fd, piece);
        stored += piece.length;
      }
      if (total > budget && !overflowed) {
        overflowed = true;
        onOverflow();
      }
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
    get totalBytes() {
      return total;
    },
    get storedBytes() {
      return stored;
    },
    streamBytes,
  };
}
