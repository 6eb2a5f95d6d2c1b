/**
 * put copies a host file or directory in and records destination, size and
 * sha256 — never the bytes. It refuses an existing destination unless told
 * to overwrite, links and special files in the source (by name), escaping
 * destinations, and anything past the storage budget — before copying.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';
import { findingTexts } from '../../../helpers/result-packages.js';

let t: TestEngine;
let src: string;
beforeEach(async () => {
  t = makeTestEngine();
  src = mkdtempSync(join(tmpdir(), 'hs-put-src-'));
  await t.engine.create({ workspaceId: 'files', budget: { storageBytes: 2 * 1024 * 1024 } });
});
afterEach(() => {
  t.cleanup();
  rmSync(src, { recursive: true, force: true });
});

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

describe('put', () => {
  it('records a file by destination, size and digest, never its bytes', async () => {
    writeFileSync(join(src, 'in.txt'), 'input-bytes-123');
    const pkg = await t.engine.put({ workspaceId: 'files', hostPath: join(src, 'in.txt'), destination: 'data/in.txt' });
    expect(pkg.provenance.inputs).toEqual([{ destination: 'data/in.txt', size_bytes: 15, sha256: `sha256:${sha('input-bytes-123')}` }]);
    expect(JSON.stringify(pkg)).not.toContain('input-bytes-123');
    const ran = await t.engine.run({ workspaceId: 'files', argv: ['cat', 'data/in.txt'] });
    expect(ran.evidence[0]?.excerpt).toContain('input-bytes-123');
  });

  it('records a directory with a manifest digest and its file count', async () => {
    mkdirSync(join(src, 'tree', 'sub'), { recursive: true });
    writeFileSync(join(src, 'tree', 'a.txt'), 'a');
    writeFileSync(join(src, 'tree', 'sub', 'b.txt'), 'bb');
    const pkg = await t.engine.put({ workspaceId: 'files', hostPath: join(src, 'tree'), destination: 'tree' });
    expect(pkg.key_findings[0]).toMatch(/^tree\/: 2 file\(s\), 3 bytes, manifest sha256:[0-9a-f]{64}$/);
    const listed = await t.engine.listFiles({ workspaceId: 'files' });
    expect(findingTexts(listed)).toEqual(['tree/', 'tree/a.txt (1 bytes)', 'tree/sub/', 'tree/sub/b.txt (2 bytes)']);
  });

  it('refuses an existing destination unless overwrite is asked', async () => {
    writeFileSync(join(src, 'x.txt'), 'one');
    await t.engine.put({ workspaceId: 'files', hostPath: join(src, 'x.txt'), destination: 'x.txt' });
    await expect(t.engine.put({ workspaceId: 'files', hostPath: join(src, 'x.txt'), destination: 'x.txt' })).rejects.toMatchObject({
      code: 'DESTINATION_EXISTS',
    });
    writeFileSync(join(src, 'x.txt'), 'two');
    expect((await t.engine.put({ workspaceId: 'files', hostPath: join(src, 'x.txt'), destination: 'x.txt', overwrite: true })).status).toBe('success');
  });

  it('refuses symlinks and FIFOs in the source, naming the path, and copies nothing', async () => {
    mkdirSync(join(src, 'tree'));
    writeFileSync(join(src, 'tree', 'ok.txt'), 'ok');
    symlinkSync('/etc/passwd', join(src, 'tree', 'link'));
    await expect(t.engine.put({ workspaceId: 'files', hostPath: join(src, 'tree'), destination: 'tree' })).rejects.toMatchObject({
      code: 'NOT_A_REGULAR_FILE',
      message: expect.stringContaining(join(src, 'tree', 'link')),
    });
    execFileSync('mkfifo', [join(src, 'pipe')]);
    await expect(t.engine.put({ workspaceId: 'files', hostPath: join(src, 'pipe'), destination: 'pipe' })).rejects.toMatchObject({
      code: 'NOT_A_REGULAR_FILE',
      message: expect.stringContaining('a FIFO'),
    });
    expect((await t.engine.listFiles({ workspaceId: 'files' })).key_findings).toEqual([]);
  });

  it('refuses destinations that escape, are absolute or hold NUL', async () => {
    writeFileSync(join(src, 'x.txt'), 'x');
    for (const destination of ['../x', '/etc/x', 'a/../../x', 'nul\0x', '']) {
      await expect(t.engine.put({ workspaceId: 'files', hostPath: join(src, 'x.txt'), destination })).rejects.toMatchObject({ code: 'BAD_PATH' });
    }
  });

  it('checks the storage budget before copying anything', async () => {
    mkdirSync(join(src, 'big'));
    writeFileSync(join(src, 'big', 'a.bin'), Buffer.alloc(1024 * 1024));
    writeFileSync(join(src, 'big', 'b.bin'), Buffer.alloc(1024 * 1024 + 1));
    await expect(t.engine.put({ workspaceId: 'files', hostPath: join(src, 'big'), destination: 'big' })).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('storage_bytes'),
    });
    expect((await t.engine.listFiles({ workspaceId: 'files' })).key_findings).toEqual([]);
  });

  it('refuses run --input onto an existing file instead of overwriting it', async () => {
    writeFileSync(join(src, 'x.txt'), 'x');
    await t.engine.put({ workspaceId: 'files', hostPath: join(src, 'x.txt'), destination: 'x.txt' });
    await expect(
      t.engine.run({ workspaceId: 'files', argv: ['true'], inputs: [{ destination: 'x.txt', hostPath: join(src, 'x.txt') }] }),
    ).rejects.toMatchObject({ code: 'DESTINATION_EXISTS' });
  });
});
