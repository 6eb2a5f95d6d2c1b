/**
 * The store hands better-sqlite3 the path of its compiled addon (#20,
 * core/store/sqlite-addon.ts): better-sqlite3's own search through the
 * `bindings` package cost every CLI call ~8 ms. The path is the addon the
 * package would have found, and a store is created and opened with it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sqliteAddonPath } from '../../../../src/core/store/sqlite-addon.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

const home = mkdtempSync(join(tmpdir(), 'hs-addon-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('the state store', () => {
  it('names the addon that better-sqlite3 itself finds', () => {
    const path = sqliteAddonPath();
    expect(path).toBeDefined();
    expect(existsSync(path!)).toBe(true);
    // What the `bindings` search resolves to for better-sqlite3: the same file.
    const found = (createRequire(import.meta.url)('bindings') as (options: { bindings: string; module_root: string; path: true }) => string)({
      bindings: 'better_sqlite3.node',
      module_root: join(path!, '..', '..', '..'),
      path: true,
    });
    expect(found).toBe(path);
  });

  it('creates a new store through that addon, and opens it again', () => {
    for (let i = 0; i < 2; i++) {
      const store = SqliteStore.open(home);
      try {
        expect(store.listWorkspaces()).toEqual([]);
      } finally {
        store.close();
      }
    }
    expect(existsSync(join(home, 'state.db'))).toBe(true);
  });
});
