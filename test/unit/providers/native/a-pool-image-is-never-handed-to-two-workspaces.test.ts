/**
 * Two processes creating at once both claim from the same image pool: each
 * ready image ends up in exactly one workspace folder (a claim is one
 * rename), none stays behind, and every image claimed is a checked pool image.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { isPoolImage } from '../../../../src/providers/native/image-pool.js';
import { freshPool, MKFS, POOL_LABEL, waitForExit } from './pool-test-helpers.js';

const BYTES = 64 * 1024 * 1024;
const IMAGES = 6;
const POOL_MODULE = resolve('dist/providers/native/image-pool.js');

/** A claimer process: waits for the start file, then claims until the pool is empty, into its own folders. */
const CLAIMER = `
const { imagePool } = await import(process.argv[1]);
const [dir, size, mkfs, label, bytes, out, go] = process.argv.slice(2);
const { existsSync, mkdirSync } = await import('node:fs');
const pool = imagePool({ dir, size: Number(size), mkfsPath: mkfs, label });
while (!existsSync(go)) await new Promise((r) => setTimeout(r, 1));
let n = 0;
for (;;) {
  const folder = out + '/ws-' + n;
  mkdirSync(folder);
  if (!(await pool.claim(Number(bytes), folder + '/storage.img'))) break;
  n++;
}
console.log(n);
`;

test.runIf(process.getuid?.() === 0 && MKFS !== undefined)('a pool image is never handed to two workspaces when two processes claim at once', async () => {
  const { root, pool } = freshPool(IMAGES);
  try {
    await waitForExit(await pool.refill(BYTES));
    expect(readdirSync(pool.dir).filter((n) => n.startsWith('ready-'))).toHaveLength(IMAGES);
    const go = join(root, 'go');
    const claimers = ['a', 'b'].map((name) => {
      const out = join(root, name);
      mkdirSync(out);
      const child = spawn(
        process.execPath,
        ['--input-type=module', '-e', CLAIMER, POOL_MODULE, pool.dir, String(IMAGES), MKFS!, POOL_LABEL, String(BYTES), out, go],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      return { out, done: new Promise<number>((done) => child.on('close', () => done(Number(stdout.trim())))) };
    });
    writeFileSync(go, '');
    const counts = await Promise.all(claimers.map((c) => c.done));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(IMAGES);
    const claimed = claimers.flatMap((c) =>
      readdirSync(c.out)
        .map((ws) => join(c.out, ws, 'storage.img'))
        .filter((path) => statSync(path, { throwIfNoEntry: false }) !== undefined),
    );
    expect(claimed).toHaveLength(IMAGES);
    expect(new Set(claimed.map((path) => statSync(path).ino)).size).toBe(IMAGES);
    for (const path of claimed) expect(await isPoolImage(path, BYTES, POOL_LABEL)).toBe(true);
    expect(readdirSync(pool.dir).filter((n) => n.startsWith('ready-'))).toEqual([]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
