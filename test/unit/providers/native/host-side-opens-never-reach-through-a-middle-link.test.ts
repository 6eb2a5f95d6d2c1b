/**
 * The root runtime's host-side opener resolves no component through a link
 * (#10 item 12): a link planted in a MIDDLE component is refused before the
 * object behind it is opened (opening a FIFO or a device has effects of its
 * own), and a socket, FIFO or device in the workspace is refused as the
 * workspace's content (exit 1, "only regular files"), never opened, never an
 * infrastructure failure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSafeFs } from '../../../../src/providers/native/safe-fs.js';

const base = mkdtempSync(join(tmpdir(), 'hs-midlink-'));
const files = join(base, 'files');
const hostDir = join(base, 'host');
mkdirSync(files);
mkdirSync(hostDir);
afterAll(() => rmSync(base, { recursive: true, force: true }));
const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };

/** A writer blocked opening the FIFO: it completes (prints) only if something opens the read end. */
function blockedWriter(fifo: string) {
  const child = spawn('sh', ['-c', 'exec 3>"$1" && echo opened', 'sh', fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return {
    opened: async () => {
      await new Promise((r) => setTimeout(r, 300));
      return out.includes('opened');
    },
    stop: () => child.kill('SIGKILL'),
  };
}

describe.runIf(process.platform === 'linux')('host-side opens and planted links', () => {
  it('never opens the FIFO behind a link in a middle component', async () => {
    const fifo = join(hostDir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    symlinkSync(hostDir, join(files, 'a'));
    const writer = blockedWriter(fifo);
    try {
      const fs = await openSafeFs(files, owner);
      await expect(fs.read('a/fifo')).rejects.toMatchObject({ code: 'BAD_PATH', message: expect.stringContaining('symbolic link') });
      await expect(fs.list('a', 10)).rejects.toMatchObject({ code: 'BAD_PATH' });
      expect(await fs.isDirectory('a')).toBe(false);
      expect(await writer.opened()).toBe(false);
    } finally {
      writer.stop();
    }
  });

  it('refuses a link to /dev in a middle component', async () => {
    symlinkSync('/dev', join(files, 'devlink'));
    const fs = await openSafeFs(files, owner);
    await expect(fs.read('devlink/null')).rejects.toMatchObject({ code: 'BAD_PATH' });
  });

  it('refuses a socket and a FIFO in the workspace as not regular files, without opening them', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(files, 'sock'), resolve));
    const fifo = join(files, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const writer = blockedWriter(fifo);
    try {
      const fs = await openSafeFs(files, owner);
      for (const name of ['sock', 'pipe']) {
        await expect(fs.read(name)).rejects.toMatchObject({
          code: 'NOT_A_REGULAR_FILE',
          category: 'user_error',
          hint: expect.stringContaining('only regular files'),
        });
      }
      expect(await writer.opened()).toBe(false);
    } finally {
      writer.stop();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
