/**
 * A store written by a newer headspace is refused (environment_error) and
 * left byte-identical: we never rewrite state we cannot read.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { SCHEMA_VERSION } from '../../../../src/core/store/migrations.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

describe('schema versioning', () => {
  it('migrates a fresh store to the current version', () => {
    home = mkdtempSync(join(tmpdir(), 'hs-store-'));
    const store = SqliteStore.open(home);
    expect(store.schemaVersion()).toBe(SCHEMA_VERSION);
    store.close();
  });

  it('refuses a newer store and leaves its bytes untouched', () => {
    home = mkdtempSync(join(tmpdir(), 'hs-store-'));
    const path = join(home, 'state.db');
    const db = new Database(path);
    db.exec('CREATE TABLE future (x)');
    db.pragma(`user_version = ${SCHEMA_VERSION + 5}`);
    db.close();
    const before = readFileSync(path);
    const filesBefore = readdirSync(home).sort();
    expect(() => SqliteStore.open(home)).toThrow(expect.objectContaining({ code: 'STORE_SCHEMA_NEWER', category: 'environment_error' }));
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(readdirSync(home).sort()).toEqual(filesBefore);
  });
});
