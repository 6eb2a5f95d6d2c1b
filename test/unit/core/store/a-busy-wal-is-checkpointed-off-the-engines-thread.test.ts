/**
 * WAL checkpoints off the engine's thread (#20, core/store/wal-checkpointer.ts):
 * nothing starts while the WAL is small or before `every` write commits; past
 * the threshold a worker checkpoints the WAL (PASSIVE) with its own
 * connection; a worker that fails says so once on stderr and is not
 * restarted, leaving the inline autocheckpoint to carry on.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WalCheckpointer } from '../../../../src/core/store/wal-checkpointer.js';

let home: string;
let db: Database.Database;
afterEach(() => {
  vi.restoreAllMocks();
  if (db?.open) db.close();
  rmSync(home, { recursive: true, force: true });
});

function walDatabase(): { path: string; frames: () => { log: number; checkpointed: number } } {
  home = mkdtempSync(join(tmpdir(), 'hs-wal-'));
  const path = join(home, 'state.db');
  db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE t (x BLOB)');
  const noop = db.prepare('PRAGMA wal_checkpoint(NOOP)');
  return { path, frames: () => noop.get() as { log: number; checkpointed: number } };
}

const write = (n: number) => {
  const insert = db.prepare('INSERT INTO t VALUES (randomblob(3000))');
  for (let i = 0; i < n; i++) insert.run();
};

async function until(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

describe('the WAL checkpointer', () => {
  it('checkpoints a WAL past its threshold on a worker, without the engine waiting', async () => {
    const { path, frames } = walDatabase();
    const checkpointer = new WalCheckpointer(path, frames, { every: 2, threshold: 50 });
    write(100);
    checkpointer.afterWriteCommit();
    checkpointer.afterWriteCommit();
    const { log } = frames();
    expect(log).toBeGreaterThanOrEqual(100);
    expect(await until(() => frames().checkpointed >= log)).toBe(true);
    checkpointer.close();
  });

  it('asks nothing before `every` write commits, and starts nothing while the WAL is under the threshold', async () => {
    const { path, frames } = walDatabase();
    const asked = vi.fn(frames);
    const small = new WalCheckpointer(path, asked, { every: 4, threshold: 10_000 });
    write(20);
    for (let i = 0; i < 3; i++) small.afterWriteCommit();
    expect(asked).not.toHaveBeenCalled();
    small.afterWriteCommit();
    expect(asked).toHaveBeenCalledTimes(1);
    await new Promise((r) => setTimeout(r, 200));
    expect(frames().checkpointed).toBe(0);
    small.close();
  });

  it('a worker that fails is reported once on stderr and not restarted', async () => {
    const { frames } = walDatabase();
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    // Its connection cannot open: the database file does not exist.
    const broken = new WalCheckpointer(join(home, 'missing.db'), frames, { every: 1, threshold: 1 });
    write(5);
    broken.afterWriteCommit();
    expect(await until(() => stderr.mock.calls.length > 0)).toBe(true);
    expect(String(stderr.mock.calls[0]![0])).toMatch(/checkpoint worker failed.*checkpoints run inline/);
    const asked = stderr.mock.calls.length;
    for (let i = 0; i < 5; i++) broken.afterWriteCommit();
    await new Promise((r) => setTimeout(r, 100));
    expect(stderr.mock.calls.length).toBe(asked);
    broken.close();
  });
});
