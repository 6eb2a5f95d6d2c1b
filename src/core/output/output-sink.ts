import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { OutputStream } from '../provider.js';

/**
 * Receives a job's output: keeps at most `budget` bytes in the log file and
 * counts every byte (so a result can say how much was printed in all). Past
 * the budget it only counts: the output budget caps capture, never the job
 * (#12 item 2), so the host's disk holds at most the budget per job however
 * long the job prints, and the wall clock is what bounds a job that never
 * stops.
 *
 * stdout and stderr are merged a whole line at a time: pipes deliver chunks
 * at arbitrary byte boundaries, and merging raw chunks could splice an
 * error line into the middle of an ordinary one, where the excerpt selector
 * would no longer see it. A partial line waits (up to PENDING_LIMIT bytes)
 * for its end.
 */
export interface OutputSink {
  write(stream: OutputStream, chunk: Buffer): void;
  close(): void;
  readonly totalBytes: number;
  readonly storedBytes: number;
  /** True once more was printed than the budget keeps. */
  readonly truncated: boolean;
  readonly streamBytes: Record<OutputStream, number>;
  /** `sha256:<hex>` of the bytes kept, once closed (a job's receipt binds it, #16: hashed as written, not read back). */
  readonly keptSha256: string | null;
  /**
   * Once closed, the bytes kept (the log's whole content) when they are at
   * most KEPT_IN_MEMORY_BYTES, else null: the run's result takes its excerpt
   * from them instead of reading the log it has just written (#20).
   */
  kept(): Buffer | null;
}

/** Output kept up to this size is also held in memory for the run's result; past it the result reads the log. */
export const KEPT_IN_MEMORY_BYTES = 64 * 1024;

const PENDING_LIMIT = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Creates the log, making its folder only when it is missing: the folder
 * exists from a home's first job on, and a mkdir (recursive: a stat too)
 * before every job's log was two wasted syscalls per job (#20).
 */
function openLog(path: string): number {
  try {
    return openSync(path, 'w', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return openSync(path, 'w', 0o600);
  }
}

export function openOutputSink(path: string, budget: number): OutputSink {
  const fd = openLog(path);
  let total = 0;
  let stored = 0;
  let closed = false;
  const keptHash = createHash('sha256');
  let keptSha256: string | null = null;
  const streamBytes: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  const pending: Record<OutputStream, Buffer[]> = { stdout: [], stderr: [] };
  const pendingBytes: Record<OutputStream, number> = { stdout: 0, stderr: 0 };
  let inMemory: Buffer[] | null = [];

  const store = (bytes: Buffer) => {
    const room = budget - stored;
    if (room <= 0 || bytes.length === 0) return;
    const piece = bytes.length <= room ? bytes : bytes.subarray(0, room);
    writeSync(fd, piece);
    keptHash.update(piece);
    // A copy: the piece may be a view of a chunk its producer reuses.
    if (inMemory !== null) {
      if (stored + piece.length <= KEPT_IN_MEMORY_BYTES) inMemory.push(Buffer.from(piece));
      else inMemory = null;
    }
    stored += piece.length;
  };
  const flush = (stream: OutputStream) => {
    if (pendingBytes[stream] === 0) return;
    store(Buffer.concat(pending[stream]));
    pending[stream] = [];
    pendingBytes[stream] = 0;
  };

  return {
    write(stream, chunk) {
      total += chunk.length;
      streamBytes[stream] += chunk.length;
      // Past the budget nothing more is kept: skip the line merging too, so counting is all a flood costs.
      if (!closed && stored < budget) {
        const lastNewline = chunk.lastIndexOf(NEWLINE);
        if (lastNewline === -1) {
          pending[stream].push(chunk);
          pendingBytes[stream] += chunk.length;
          if (pendingBytes[stream] > PENDING_LIMIT) flush(stream);
        } else {
          pending[stream].push(chunk.subarray(0, lastNewline + 1));
          pendingBytes[stream] += lastNewline + 1;
          flush(stream);
          const rest = chunk.subarray(lastNewline + 1);
          if (rest.length) {
            pending[stream].push(rest);
            pendingBytes[stream] += rest.length;
          }
        }
      }
    },
    close() {
      if (closed) return;
      flush('stdout');
      flush('stderr');
      closed = true;
      closeSync(fd);
      keptSha256 = `sha256:${keptHash.digest('hex')}`;
    },
    get totalBytes() {
      return total;
    },
    get storedBytes() {
      return stored;
    },
    get keptSha256() {
      return keptSha256;
    },
    kept() {
      return closed && inMemory !== null ? Buffer.concat(inMemory) : null;
    },
    get truncated() {
      return total > budget;
    },
    streamBytes,
  };
}
