/**
 * The end of a job's output, kept in memory while the output budget's head
 * fills the log: the last `capacity` bytes, in whole chunks as the sink
 * merged them (whole lines), so a job's last words survive a flood before
 * them. Constant work per byte: the oldest chunks are dropped by an index,
 * never by shifting an array.
 */
const NEWLINE = 0x0a;

export class OutputTail {
  private chunks: Buffer[] = [];
  private first = 0;
  /** Bytes held. */
  length = 0;
  /** The last byte dropped from the front (null: nothing dropped yet), to tell whether what is held begins a line. */
  private droppedLast: number | null = null;

  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  push(bytes: Buffer): void {
    if (bytes.length === 0) return;
    // A copy: the bytes may be a view of a chunk their producer reuses.
    this.chunks.push(Buffer.from(bytes));
    this.length += bytes.length;
    while (this.length > this.capacity) {
      const oldest = this.chunks[this.first]!;
      const excess = this.length - this.capacity;
      if (oldest.length <= excess) {
        this.droppedLast = oldest[oldest.length - 1]!;
        this.first += 1;
        this.length -= oldest.length;
      } else {
        this.droppedLast = oldest[excess - 1]!;
        this.chunks[this.first] = oldest.subarray(excess);
        this.length -= excess;
      }
    }
    if (this.first > 1024 && this.first * 2 > this.chunks.length) {
      this.chunks = this.chunks.slice(this.first);
      this.first = 0;
    }
  }

  /** Everything held, in order. */
  contents(): Buffer {
    return Buffer.concat(this.chunks.slice(this.first), this.length);
  }

  /** At most the last `bytes` held, starting at a line's start when a line begins within them. */
  lastLines(bytes: number): Buffer {
    const all = this.contents();
    const start = Math.max(0, all.length - bytes);
    const before = start > 0 ? all[start - 1] : (this.droppedLast ?? NEWLINE);
    const part = all.subarray(start);
    if (before === NEWLINE) return part;
    const newline = part.indexOf(NEWLINE);
    return newline === -1 || newline === part.length - 1 ? part : part.subarray(newline + 1);
  }
}
