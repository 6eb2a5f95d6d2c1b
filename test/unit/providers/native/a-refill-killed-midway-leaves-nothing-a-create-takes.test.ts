/**
 * A refill killed while it makes an image leaves at most a `making-` file,
 * which no claim takes; a file under a ready name that is not a finished
 * pool image of this home is refused and deleted; the next refill clears
 * the debris and fills the slot.
 */
import { readdirSync, rmSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { isPoolImage } from '../../../../src/providers/native/image-pool.js';
import { freshPool, MKFS, POOL_LABEL, waitForExit } from './pool-test-helpers.js';

const BYTES = 256 * 1024 * 1024;

test.runIf(process.getuid?.() === 0 && MKFS !== undefined)('a refill interrupted by a kill leaves nothing that is taken', async () => {
  const { root, pool } = freshPool(1);
  try {
    const pid = await pool.refill(BYTES);
    // Kill it as soon as its image exists under the temporary name (the shell and its mkfs: the whole group).
    const deadline = Date.now() + 30_000;
    while (!readdirSync(pool.dir).some((n) => n.startsWith('making-') || n.startsWith('ready-')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 1));
    process.kill(-pid!, 'SIGKILL');
    await waitForExit(pid);
    const dest = join(root, 'ws');
    mkdirSync(dest);
    // Whatever the kill left: a claim takes only a finished image, and checks it.
    if (await pool.claim(BYTES, join(dest, 'storage.img'))) expect(await isPoolImage(join(dest, 'storage.img'), BYTES, POOL_LABEL)).toBe(true);
    rmSync(join(dest, 'storage.img'), { force: true });
    // A half-made image under the temporary name is never taken, even by its ready name's size and format.
    const making = readdirSync(pool.dir).find((n) => n.startsWith('making-'));
    if (making !== undefined) expect(await pool.claim(BYTES, join(dest, 'storage.img'))).toBe(false);

    // A file someone put under a ready name (unformatted): refused and deleted, never handed out.
    await waitForExit(await pool.refill(BYTES));
    const ready = readdirSync(pool.dir).find((n) => n.startsWith('ready-'))!;
    rmSync(join(pool.dir, ready));
    writeFileSync(join(pool.dir, ready), Buffer.alloc(4096), { mode: 0o600 });
    expect(await pool.claim(BYTES, join(dest, 'storage.img'))).toBe(false);
    expect(existsSync(join(dest, 'storage.img'))).toBe(false);

    // The next refill fills the slot again with a finished image, and leaves no temporary file.
    writeFileSync(join(pool.dir, 'making-1-000000000000-0.img'), 'debris', { mode: 0o600 });
    writeFileSync(join(pool.dir, 'stray'), 'not a pool file');
    await waitForExit(await pool.refill(BYTES));
    const left = readdirSync(pool.dir).sort();
    expect(left.filter((n) => n.startsWith('ready-'))).toHaveLength(1);
    expect(left).not.toContain('stray');
    expect(left.filter((n) => n.startsWith('making-'))).toEqual([]);
    expect(await pool.claim(BYTES, join(dest, 'storage.img'))).toBe(true);
    expect(await isPoolImage(join(dest, 'storage.img'), BYTES, POOL_LABEL)).toBe(true);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
