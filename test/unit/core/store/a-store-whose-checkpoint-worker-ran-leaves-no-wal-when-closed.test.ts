/**
 * A long-lived engine's store, once its checkpoint worker has run
 * (wal-checkpointer.ts), leaves no WAL behind when it closes: the worker's
 * connection may outlive the engine's by a moment, so the engine's close is
 * not SQLite's last one, which would have checkpointed and removed the WAL;
 * the store checkpoints it and truncates it itself (a full bench's store
 * scale read 41 KiB a workspace on disk, 39 MiB of it WAL, without this).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHeadspace } from '../../../../src/api/index.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('a store whose checkpoint worker ran', () => {
  it('leaves an empty or no WAL once the engine is closed', async () => {
    home = mkdtempSync(join(tmpdir(), 'hs-wal-close-'));
    const engine = createHeadspace({ home, defaultProvider: 'fake' });
    // As the store-scale bench does: a thousand creates, far past the worker's 1,000-frame threshold.
    for (let i = 0; i < 1000; i++) await engine.create({ purpose: `store ${i}` });
    engine.close();
    const wal = join(home, 'state.db-wal');
    expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  });
});
