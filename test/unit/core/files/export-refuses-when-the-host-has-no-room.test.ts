/**
 * Export checks the destination filesystem's free space before writing
 * (#10 item 5): an artifact that cannot fit is refused as an environment
 * error (exit 2) with a hint, and nothing is left in the destination folder.
 * Needs root, to mount a 1 MiB tmpfs as the too-small destination.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

const isRoot = process.getuid?.() === 0;

describe.runIf(isRoot)('export to a filesystem without room (needs root to mount a small tmpfs)', () => {
  let base: string;
  let small: string;
  let t: TestEngine;
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'hs-noroom-'));
    small = join(base, 'small');
    mkdirSync(small);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', small]);
    t = makeTestEngine();
    const source = join(base, 'data.bin');
    writeFileSync(source, randomBytes(4 * 1024 * 1024));
    await t.engine.create({ workspaceId: 'room' });
    await t.engine.put({ workspaceId: 'room', hostPath: source, destination: 'data.bin' });
    await t.engine.declare({ workspaceId: 'room', name: 'data.bin', purpose: 'four MiB of data' });
  });
  afterAll(() => {
    t?.cleanup();
    try {
      execFileSync('umount', [small]);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('refuses with HOST_NO_SPACE (exit 2) before writing anything', async () => {
    await expect(t.engine.export({ workspaceId: 'room', name: 'data.bin', to: join(small, 'data.bin') })).rejects.toMatchObject({
      code: 'HOST_NO_SPACE',
      category: 'environment_error',
      hint: expect.stringContaining('free space'),
    });
    expect(readdirSync(small)).toEqual([]);
  });
});
