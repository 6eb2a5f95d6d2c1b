import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { OutputStream } from '../provider.js';
import { OutputTail } from './output-tail.js';

/**
 * Receives a job's output: keeps at most `budget` bytes in the log file and
 * counts every byte (so a result can say how much was printed in all). Past
 * the budget it keeps the output's first bytes and its last lines (the
 * budget's last sixteenth, at most 1 MiB, held in memory until the end) with
 * a line marking the gap between, and counts the rest: the output budget
 * caps capture, never the job (#12 item 2), so the host's disk holds at most
 * the budget per job however long the job prints, and the wall clock is what
 * bounds a job that never stops.
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
 * The output budget's last sixteenth (at most 1 MiB) is kept for the output's end: past the budget, the log holds
 * its first bytes, a line marking the gap, then its last lines. A budget under 16 KiB keeps its first bytes only.
 */
const TAIL_SHARE = 16;
const TAIL_MAX = 1024 * 1024;
const TAIL_MIN_BUDGET = 16 * 1024;
/** Room within the tail's share for the gap's marker line, so the log never holds more than the budget. */
const MARKER_RESERVE = 160;

function splitBudget(budget: number): { headBytes: number; tail: OutputTail | null } {
  if (budget < TAIL_MIN_BUDGET) return { headBytes: budget, tail: null };
  const tailBytes = Math.min(TAIL_MAX, Math.floor(budget / TAIL_SHARE));
  return { headBytes: budget - tailBytes, tail: new OutputTail(tailBytes) };
}

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
  const { headBytes, tail } = splitBudget(budget);

  /** Appends to the log, the digest and (while small) the in-memory copy. */
  let lastByte = NEWLINE;
  const keep = (piece: Buffer) => {
    if (piece.length === 0) return;
    writeSync(fd, piece);
    lastByte = piece[piece.length - 1]!;
    keptHash.update(piece);
    // A copy: the piece may be a view of a chunk its producer reuses.
    if (inMemory !== null) {
      if (stored + piece.length <= KEPT_IN_MEMORY_BYTES) inMemory.push(Buffer.from(piece));
      else inMemory = null;
    }
    stored += piece.length;
  };
  const store = (bytes: Buffer) => {
    if (bytes.length === 0) return;
    const room = Math.max(0, headBytes - stored);
    if (room > 0) keep(bytes.length <= room ? bytes : bytes.subarray(0, room));
    if (bytes.length > room) tail?.push(bytes.subarray(room));
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
      // Past the head, lines still merge into the tail; without one (a tiny budget), counting is all a flood costs.
      if (!closed && (stored < headBytes || tail !== null)) {
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
      if (tail !== null && tail.length > 0) {
        if (total <= budget) keep(tail.contents());
        else {
          // Past the budget: the tail's last lines after a marked gap, so a job's last words (its answer, its error)
          // survive a flood before them (a new user lost a final answer line after 10 MiB of rows).
          const kept = tail.lastLines(tail.capacity - MARKER_RESERVE);
          const gap = total - stored - kept.length;
          const newline = stored > 0 && lastByte !== NEWLINE ? '\n' : '';
          keep(Buffer.from(`${newline}…[${gap} bytes not kept: the output budget keeps the first ${stored} and the last ${kept.length} bytes]…\n`));
          keep(kept);
        }
      }
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
