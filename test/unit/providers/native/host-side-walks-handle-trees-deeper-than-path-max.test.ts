/**
 * A job can nest directories far past PATH_MAX (#10 item 8). Every host-side
 * walk of workspace content is fd-relative and iterative, so listing,
 * measuring, reading, writing and checking a directory at depth 1,500 work,
 * a tree is removed whatever its depth, and a deep HOST tree given to put is
 * copied rather than failing as an engine fault.
 */
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTree } from '../../../../src/core/files/fd-walk.js';
import { openSafeFs } from '../../../../src/providers/native/safe-fs.js';
import { makeTestEngine } from '../../../helpers/engine.js';

const DEPTH = 1500;
const LEAF = 'f'.repeat(200);
const base = mkdtempSync(join(tmpdir(), 'hs-deep-'));
const files = join(base, 'files');
mkdirSync(files);
afterAll(async () => {
  await removeTree(base);
  rmSync(base, { recursive: true, force: true });
});
const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const deepDir = `${'ddd/'.repeat(DEPTH)}`.slice(0, -1);

/** Builds the tree with relative chdir/mkdir in a child process, the way a job would. */
function makeDeepTree(root: string): void {
  const script = `const fs = require('fs'); process.chdir(process.argv[1]); for (let i = 0; i < ${DEPTH}; i++) { fs.mkdirSync('ddd'); process.chdir('ddd'); } fs.writeFileSync('${LEAF}', 'bottom');`;
  const made = spawnSync(process.execPath, ['-e', script, root]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
}
makeDeepTree(files);

describe('a tree deeper than PATH_MAX', () => {
  it('is listed whole, the bottom path longer than PATH_MAX', async () => {
    const fs = await openSafeFs(files, owner);
    const { entries, truncated } = await fs.list('', 10_000);
    expect(truncated).toBe(false);
    expect(entries).toHaveLength(DEPTH + 1);
    const bottom = entries[entries.length - 1]!;
    expect(bottom).toEqual({ path: `${deepDir}/${LEAF}`, type: 'file', size: 6 });
    expect(bottom.path.length).toBeGreaterThan(4096);
    expect(await fs.measure()).toBe(6);
  });

  it('reads, writes and checks directories at the bottom', async () => {
    const fs = await openSafeFs(files, owner);
    const stream = await fs.read(`${deepDir}/${LEAF}`);
    const chunks: Buffer[] = [];
    for await (const chunk of stream.chunks) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe('bottom');
    const data = Buffer.from('written deep');
    await fs.write(`${deepDir}/new/dirs/out.txt`, data, { expectedSha256: createHash('sha256').update(data).digest('hex'), overwrite: false });
    expect(await fs.isDirectory(`${deepDir}/new/dirs`)).toBe(true);
    expect(await fs.isDirectory(`${deepDir}/${LEAF}`)).toBe(false);
    const back = await fs.read(`${deepDir}/new/dirs/out.txt`);
    expect(back.size).toBe(data.length);
    await back.close();
  });

  it('is removed whole by removeTree', async () => {
    const scratch = join(base, 'scratch');
    mkdirSync(scratch);
    makeDeepTree(scratch);
    await removeTree(scratch);
    expect(existsSync(scratch)).toBe(false);
  });

  it('on the host, is copied into a workspace by put', async () => {
    const t = makeTestEngine();
    try {
      const source = join(base, 'host-source');
      mkdirSync(source);
      makeDeepTree(source);
      await t.engine.create({ workspaceId: 'deep' });
      const pkg = await t.engine.put({ workspaceId: 'deep', hostPath: source, destination: 'in' });
      expect(pkg.status).toBe('success');
      expect(pkg.key_findings[0]).toContain('1 file(s), 6 bytes');
    } finally {
      t.cleanup();
    }
  });
});
