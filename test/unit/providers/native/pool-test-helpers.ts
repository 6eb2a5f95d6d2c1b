/**
 * Helpers for the image pool's tests (image-pool.ts): a pool in a fresh
 * folder, and a wait for a refill's detached shell to end.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { imagePool, type ImagePool } from '../../../../src/providers/native/image-pool.js';
import { MKFS_CANDIDATES } from '../../../../src/providers/native/workspace-filesystem.js';

export const POOL_LABEL = 'hs-pooltest';
export const MKFS = MKFS_CANDIDATES.find((path) => existsSync(path));

export function freshPool(size: number): { root: string; pool: ImagePool } {
  const root = mkdtempSync(join(tmpdir(), 'hs-pool-'));
  return { root, pool: imagePool({ dir: join(root, 'pool'), size, mkfsPath: MKFS!, label: POOL_LABEL }) };
}

/** Polls until the process is gone (a refill's shell is not our child once detached, so there is no exit event to await). */
export async function waitForExit(pid: number | undefined, timeoutMs = 60_000): Promise<void> {
  if (pid === undefined) return;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} still running after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
