/**
 * The tar the Engine's archive API speaks (PUT/GET /containers/{id}/archive),
 * read and written here with names as raw bytes: a workspace name that is not
 * UTF-8 must cross as itself, never as a lossy look-alike, and an entry's
 * type is read from its header so a link or device planted by a job is seen
 * for what it is before a byte of it is used.
 *
 * Reads ustar headers plus the PAX (`x`) and GNU (`L`, `K`) long-name records
 * Go's archive/tar writes; writes ustar, with a PAX `path` record for a name
 * past 100 bytes.
 */
const BLOCK = 512;

export type TarEntryType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'other';

export interface TarHeader {
  /** The entry's name as bytes, without a trailing `/`. */
  name: Buffer;
  type: TarEntryType;
  size: number;
  mode: number;
}

export interface TarWriteEntry {
  name: Buffer;
  type: 'file' | 'directory';
  mode: number;
  uid: number;
  gid: number;
  data?: Buffer;
}

function octal(value: number, width: number): Buffer {
  const text = value.toString(8).padStart(width - 1, '0');
  if (text.length > width - 1) throw new RangeError(`tar field of ${width} bytes cannot hold ${value}`);
  return Buffer.from(`${text}\0`, 'ascii');
}

function headerBlock(name: Buffer, typeflag: string, size: number, mode: number, uid: number, gid: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  name.copy(block, 0, 0, Math.min(name.length, 100));
  octal(mode & 0o7777, 8).copy(block, 100);
  octal(uid, 8).copy(block, 108);
  octal(gid, 8).copy(block, 116);
  octal(size, 12).copy(block, 124);
  octal(Math.floor(Date.now() / 1000), 12).copy(block, 136);
  block.fill(0x20, 148, 156); // checksum counted as spaces
  block.write(typeflag, 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  Buffer.from(`${sum.toString(8).padStart(6, '0')}\0 `, 'ascii').copy(block, 148);
  return block;
}

function padded(data: Buffer): Buffer[] {
  const rest = data.length % BLOCK;
  return rest === 0 ? [data] : [data, Buffer.alloc(BLOCK - rest)];
}

function paxRecord(key: string, value: Buffer): Buffer {
  // "<len> key=value\n" where len counts itself.
  const body = Buffer.concat([Buffer.from(` ${key}=`), value, Buffer.from('\n')]);
  let length = body.length + 1;
  while (String(length).length + body.length !== length) length = String(length).length + body.length;
  return Buffer.concat([Buffer.from(String(length)), body]);
}

/** A whole archive in memory (a put is bounded by the caller's data). */
export function writeTar(entries: readonly TarWriteEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const name = entry.type === 'directory' ? Buffer.concat([entry.name, Buffer.from('/')]) : entry.name;
    if (name.length > 100) {
      const pax = paxRecord('path', name);
      parts.push(headerBlock(Buffer.from('PaxHeader'), 'x', pax.length, 0o644, 0, 0), ...padded(pax));
    }
    const data = entry.type === 'file' ? (entry.data ?? Buffer.alloc(0)) : Buffer.alloc(0);
    parts.push(headerBlock(name, entry.type === 'file' ? '0' : '5', data.length, entry.mode, entry.uid, entry.gid));
    if (data.length > 0) parts.push(...padded(data));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

function cString(block: Buffer, start: number, length: number): Buffer {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return Buffer.from(end < 0 ? field : field.subarray(0, end));
}

function numeric(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  if ((field[0]! & 0x80) !== 0) {
    // base-256, used by Go for values past the octal field
    let value = field[0]! & 0x7f;
    for (let i = 1; i < field.length; i++) value = value * 256 + field[i]!;
    return value;
  }
  const text = field.toString('ascii').replace(/\0.*$/s, '').trim();
  return text === '' ? 0 : parseInt(text, 8);
}

function typeOf(flag: string): TarEntryType {
  if (flag === '0' || flag === '\0' || flag === '7') return 'file';
  if (flag === '5') return 'directory';
  if (flag === '2') return 'symlink';
  if (flag === '1') return 'hardlink';
  return 'other';
}

function parsePax(data: Buffer): Map<string, Buffer> {
  const records = new Map<string, Buffer>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = parseInt(data.subarray(at, space).toString('ascii'), 10);
    if (!Number.isFinite(length) || length <= 0) break;
    const record = data.subarray(space + 1, at + length - 1);
    const eq = record.indexOf(0x3d);
    if (eq > 0) records.set(record.subarray(0, eq).toString('utf8'), Buffer.from(record.subarray(eq + 1)));
    at += length;
  }
  return records;
}

/**
 * A pull reader over a byte stream: `next()` gives each entry's header;
 * its data is then read with `data()` or skipped (the next `next()` skips
 * what was not read).
 */
export class TarReader {
  private buffered: Buffer[] = [];
  private bufferedBytes = 0;
  private done = false;
  private remaining = 0;
  private padding = 0;
  private readonly iterator: AsyncIterator<Buffer>;

  constructor(source: AsyncIterable<Buffer>) {
    this.iterator = source[Symbol.asyncIterator]();
  }

  private async fill(bytes: number): Promise<boolean> {
    while (this.bufferedBytes < bytes && !this.done) {
      const step = await this.iterator.next();
      if (step.done) this.done = true;
      else {
        const chunk = Buffer.isBuffer(step.value) ? step.value : Buffer.from(step.value);
        this.buffered.push(chunk);
        this.bufferedBytes += chunk.length;
      }
    }
    return this.bufferedBytes >= bytes;
  }

  private take(bytes: number): Buffer {
    const all = this.buffered.length === 1 ? this.buffered[0]! : Buffer.concat(this.buffered);
    const out = all.subarray(0, bytes);
    const rest = all.subarray(bytes);
    this.buffered = rest.length > 0 ? [rest] : [];
    this.bufferedBytes = rest.length;
    return out;
  }

  private async exactly(bytes: number): Promise<Buffer> {
    if (!(await this.fill(bytes))) throw new Error('the archive ended inside an entry');
    return Buffer.from(this.take(bytes));
  }

  private async skipRest(): Promise<void> {
    let left = this.remaining + this.padding;
    while (left > 0) {
      if (!(await this.fill(1))) throw new Error('the archive ended inside an entry');
      left -= this.take(Math.min(left, this.bufferedBytes)).length;
    }
    this.remaining = 0;
    this.padding = 0;
  }

  async next(): Promise<TarHeader | undefined> {
    await this.skipRest();
    let longName: Buffer | undefined;
    let pax = new Map<string, Buffer>();
    for (;;) {
      if (!(await this.fill(BLOCK))) return undefined;
      const block = Buffer.from(this.take(BLOCK));
      if (block.every((b) => b === 0)) return undefined;
      const flag = String.fromCharCode(block[156]!);
      const size = numeric(block, 124, 12);
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
        const data = await this.exactly(size);
        if (pad > 0) await this.exactly(pad);
        if (flag === 'x') pax = parsePax(data);
        if (flag === 'L') longName = cString(data, 0, data.length);
        continue;
      }
      let name = longName ?? cString(block, 0, 100);
      const magic = block.subarray(257, 262).toString('ascii');
      if (longName === undefined && magic === 'ustar') {
        const prefix = cString(block, 345, 155);
        if (prefix.length > 0) name = Buffer.concat([prefix, Buffer.from('/'), name]);
      }
      name = pax.get('path') ?? name;
      const realSize = pax.has('size') ? Number(pax.get('size')!.toString('ascii')) : size;
      while (name.length > 0 && name[name.length - 1] === 0x2f) name = name.subarray(0, name.length - 1);
      const type = typeOf(flag);
      this.remaining = type === 'file' ? realSize : realSize;
      this.padding = (BLOCK - (realSize % BLOCK)) % BLOCK;
      return { name, type, size: type === 'file' ? realSize : 0, mode: numeric(block, 100, 8) };
    }
  }

  /** The current entry's data, in chunks of at most `chunkBytes`. */
  async *data(chunkBytes: number): AsyncGenerator<Buffer> {
    while (this.remaining > 0) {
      if (!(await this.fill(1))) throw new Error('the archive ended inside an entry');
      const chunk = Buffer.from(this.take(Math.min(this.remaining, chunkBytes, this.bufferedBytes)));
      this.remaining -= chunk.length;
      yield chunk;
    }
  }
}
