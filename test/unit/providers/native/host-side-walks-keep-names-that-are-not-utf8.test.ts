/**
 * A Linux file name is bytes, and a job may choose bytes that are not UTF-8
 * (round 2 of the red team). Every host-side walk, read, write, measure,
 * removal and copy keeps such a name as itself: a directory named `d\xff`
 * and what is inside it are listed, `r\xff.txt` and a real `r\u{fffd}.txt`
 * are two entries with two text forms, each text form reads its own file,
 * and a host tree with such names enters a workspace byte for byte. Read as
 * UTF-8 instead, the directory vanished and the two files merged into one
 * name that opened the wrong one.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTree } from '../../../../src/core/files/fd-walk.js';
import { openSafeFs } from '../../../../src/providers/native/safe-fs.js';
import { makeTestEngine } from '../../../helpers/engine.js';

const base = mkdtempSync(join(tmpdir(), 'hs-bytes-'));
afterAll(async () => {
  await removeTree(base);
  rmSync(base, { recursive: true, force: true });
});
const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
/** `<dir>/<raw bytes>` as a Buffer path: the way a job names files. */
const at = (dir: string, ...parts: Buffer[]) => Buffer.concat([Buffer.from(dir), ...parts.flatMap((p) => [Buffer.from('/'), p])]);
const bytes = (text: string) => Buffer.from(text, 'latin1');

/** The red team's tree: a directory and a file named with bytes that are not UTF-8, beside a real U+FFFD and a real backslash. */
function plant(root: string): void {
  mkdirSync(at(root, bytes('d\xff')));
  writeFileSync(at(root, bytes('d\xff'), bytes('x\xfe.txt')), 'bad');
  writeFileSync(at(root, bytes('r\xff.txt')), 'invalid-utf8');
  writeFileSync(join(root, 'r\ufffd.txt'), 'literal-fffd');
  writeFileSync(join(root, 'r\\xff.txt'), 'backslash');
}

async function readAll(fs: Awaited<ReturnType<typeof openSafeFs>>, path: string): Promise<string> {
  const stream = await fs.read(path);
  const chunks: Buffer[] = [];
  for await (const chunk of stream.chunks) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe('names that are not valid UTF-8', () => {
  const files = join(base, 'files');
  mkdirSync(files);
  plant(files);

  it('are all listed, each with its own text form', async () => {
    const fs = await openSafeFs(files, owner);
    const { entries } = await fs.list('', 100);
    expect(entries.map((e) => e.path).sort()).toEqual(['d\\xff', 'd\\xff/x\\xfe.txt', 'r\\\\xff.txt', 'r\\ufffd.txt', 'r\\xff.txt'].sort());
    expect(new Set(entries.map((e) => e.path)).size).toBe(entries.length);
    expect(await fs.measure()).toBe(3 + 12 + 12 + 9);
  });

  it('read each its own file by its text form', async () => {
    const fs = await openSafeFs(files, owner);
    expect(await readAll(fs, 'r\\xff.txt')).toBe('invalid-utf8');
    expect(await readAll(fs, 'r\\ufffd.txt')).toBe('literal-fffd');
    expect(await readAll(fs, 'r\\\\xff.txt')).toBe('backslash');
    expect(await readAll(fs, 'd\\xff/x\\xfe.txt')).toBe('bad');
    expect(await fs.isDirectory('d\\xff')).toBe(true);
    expect((await fs.list('d\\xff', 10)).entries.map((e) => e.path)).toEqual(['d\\xff/x\\xfe.txt']);
  });

  it('are written as the exact bytes the text form stands for', async () => {
    const fs = await openSafeFs(files, owner);
    const data = Buffer.from('new');
    await fs.write('n\\xff\\xfe/o\\x80.txt', data, { expectedSha256: createHash('sha256').update(data).digest('hex'), overwrite: false });
    expect(readFileSync(at(files, bytes('n\xff\xfe'), bytes('o\x80.txt'))).toString()).toBe('new');
  });

  it('are removed whole by removeTree', async () => {
    const scratch = join(base, 'scratch');
    mkdirSync(scratch);
    plant(scratch);
    await removeTree(scratch);
    expect(existsSync(scratch)).toBe(false);
  });

  it('on the host, enter a workspace by put and keep their bytes', async () => {
    const t = makeTestEngine();
    try {
      const source = join(base, 'host-source');
      mkdirSync(source);
      plant(source);
      await t.engine.create({ workspaceId: 'bytes' });
      const pkg = await t.engine.put({ workspaceId: 'bytes', hostPath: source, destination: 'in' });
      expect(pkg.status).toBe('success');
      expect(pkg.key_findings[0]).toContain('4 file(s)');
      const listed = await t.engine.listFiles({ workspaceId: 'bytes', path: 'in' });
      const paths = listed.key_findings.map((f) => (typeof f === 'string' ? f : f.path));
      expect(paths).toEqual(expect.arrayContaining(['in/d\\xff/x\\xfe.txt', 'in/r\\xff.txt', 'in/r\\ufffd.txt', 'in/r\\\\xff.txt']));
    } finally {
      t.cleanup();
    }
  });
});
