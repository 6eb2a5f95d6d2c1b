/**
 * A job can plant a link to a host file in its workspace. Host-side read,
 * write, list and measure run as root, so each must refuse to follow a link,
 * whether it is the last component or a directory on the way, and never
 * return or count the host file's bytes.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { openSafeFs } from '../../../../src/providers/native/safe-fs.js';

const base = mkdtempSync(join(tmpdir(), 'hs-safe-fs-'));
const files = join(base, 'files');
const secretDir = join(base, 'host-secret');
mkdirSync(files);
mkdirSync(secretDir);
writeFileSync(join(secretDir, 'shadow'), 'TOP-SECRET-HOST-BYTES');
symlinkSync(join(secretDir, 'shadow'), join(files, 'x'));
symlinkSync(secretDir, join(files, 'dirlink'));
writeFileSync(join(files, 'ok.txt'), 'fine');
afterAll(() => rmSync(base, { recursive: true, force: true }));
const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

it('refuses to read a planted link to a host file', async () => {
  const fs = await openSafeFs(files, owner);
  await expect(fs.read('x')).rejects.toMatchObject({ code: 'BAD_PATH' });
});

it('refuses to read through a linked directory', async () => {
  const fs = await openSafeFs(files, owner);
  await expect(fs.read('dirlink/shadow')).rejects.toMatchObject({ code: 'BAD_PATH' });
});

it('refuses to write through a linked directory and leaves the host file alone', async () => {
  const fs = await openSafeFs(files, owner);
  const data = Buffer.from('overwritten');
  const expectedSha256 = createHash('sha256').update(data).digest('hex');
  await expect(fs.write('dirlink/shadow', data, { expectedSha256, overwrite: true })).rejects.toMatchObject({ code: 'BAD_PATH' });
  await expect(fs.write('dirlink/new', data, { expectedSha256, overwrite: true })).rejects.toMatchObject({ code: 'BAD_PATH' });
});

it('lists links as links, does not descend into them, and does not count what they point at', async () => {
  const fs = await openSafeFs(files, owner);
  const { entries } = await fs.list('', 100);
  expect(entries).toEqual([
    { path: 'dirlink', type: 'symlink', size: 0 },
    { path: 'ok.txt', type: 'file', size: 4 },
    { path: 'x', type: 'symlink', size: 0 },
  ]);
  expect(await fs.measure()).toBe(4);
  await expect(fs.list('dirlink', 10)).rejects.toMatchObject({ code: 'BAD_PATH' });
});

it('reads a regular file and refuses a directory as not a regular file', async () => {
  const fs = await openSafeFs(files, owner);
  const stream = await fs.read('ok.txt');
  const parts: Buffer[] = [];
  for await (const chunk of stream.chunks) parts.push(chunk);
  expect(Buffer.concat(parts).toString()).toBe('fine');
  mkdirSync(join(files, 'sub'), { recursive: true });
  await expect(fs.read('sub')).rejects.toMatchObject({ code: 'NOT_A_REGULAR_FILE' });
});
