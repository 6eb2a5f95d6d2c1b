/**
 * The archive API's tar is read and written with names as bytes: a name that
 * is not UTF-8 round-trips as itself, a long name goes through a PAX record,
 * and an entry's type comes from its header (a planted link is seen as one).
 */
import { expect, it } from 'vitest';
import { TarReader, writeTar } from '../../../../src/providers/docker/tar.js';

async function* once(buffer: Buffer): AsyncGenerator<Buffer> {
  // Odd-sized pieces, as a socket delivers them.
  for (let at = 0; at < buffer.length; at += 700) yield buffer.subarray(at, at + 700);
}

it('round-trips a name that is not UTF-8, a long name and the file bytes', async () => {
  const raw = Buffer.from([0x72, 0xff, 0x2e, 0x74]);
  const long = Buffer.from(`${'d'.repeat(120)}/${'f'.repeat(80)}`);
  const data = Buffer.from('x'.repeat(1500));
  const tar = writeTar([
    { name: raw, type: 'file', mode: 0o644, uid: 600001, gid: 600001, data: Buffer.from('invalid') },
    { name: Buffer.from('d'.repeat(120)), type: 'directory', mode: 0o755, uid: 1, gid: 1 },
    { name: long, type: 'file', mode: 0o644, uid: 1, gid: 1, data },
  ]);
  const reader = new TarReader(once(tar));
  const first = await reader.next();
  expect(first?.name.equals(raw)).toBe(true);
  expect(first?.type).toBe('file');
  expect(first?.size).toBe(7);
  expect((await reader.next())?.type).toBe('directory');
  const third = await reader.next();
  expect(third?.name.equals(long)).toBe(true);
  const parts: Buffer[] = [];
  for await (const chunk of reader.data(512)) {
    expect(chunk.length).toBeLessThanOrEqual(512);
    parts.push(chunk);
  }
  expect(Buffer.concat(parts).equals(data)).toBe(true);
  expect(await reader.next()).toBeUndefined();
});

it('reads a symbolic link entry as a symlink, not as a file', async () => {
  const block = writeTar([{ name: Buffer.from('link'), type: 'file', mode: 0o777, uid: 0, gid: 0 }]);
  block.write('2', 156, 'ascii'); // typeflag: symlink
  let sum = 0;
  block.fill(0x20, 148, 156);
  for (const byte of block.subarray(0, 512)) sum += byte;
  Buffer.from(`${sum.toString(8).padStart(6, '0')}\0 `, 'ascii').copy(block, 148);
  const header = await new TarReader(once(block)).next();
  expect(header?.type).toBe('symlink');
  expect(header?.size).toBe(0);
});
