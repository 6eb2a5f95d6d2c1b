/**
 * The home and every directory above it must be owned by root or this user,
 * the home writable by its owner alone, and a directory above it writable by
 * no one else unless sticky (/tmp): a home another user could write in let
 * that user swap its serve directory between the client's check and its
 * connect, and answer a served call that carried the caller's whole
 * environment (red team, session 11). Opening the store refuses such a home
 * (exit 2, naming the directory); a link on the way is judged as a link and
 * where it leads.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unsafeHomeReason, type PathOwnership } from '../../../../src/core/store/home-safety.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

const ME = 1000;
const dir = (path: string, uid: number, mode: number, link = false): PathOwnership => ({ path, uid, mode: 0o40000 | mode, ...(link ? { link } : {}) });

describe("which homes are this user's alone", () => {
  it('accepts a 0700 home under directories of root or this user, and a sticky world-writable one like /tmp', () => {
    expect(unsafeHomeReason([dir('/home/me/.headspace', ME, 0o700), dir('/home/me', ME, 0o755), dir('/home', 0, 0o755), dir('/', 0, 0o755)], ME)).toBeNull();
    expect(unsafeHomeReason([dir('/tmp/h', ME, 0o700), dir('/tmp', 0, 0o1777), dir('/', 0, 0o755)], ME)).toBeNull();
  });

  it('refuses a directory of another user on the way, naming it', () => {
    expect(unsafeHomeReason([dir('/srv/x/h', ME, 0o700), dir('/srv/x', 1001, 0o755), dir('/', 0, 0o755)], ME)).toContain('/srv/x is owned by uid 1001');
  });

  it('refuses a home writable by its group or others, even sticky', () => {
    expect(unsafeHomeReason([dir('/h', ME, 0o1777), dir('/', 0, 0o755)], ME)).toContain('/h is writable by its group or by others');
  });

  it('refuses a directory above it that others can write without the sticky bit', () => {
    expect(unsafeHomeReason([dir('/shared/h', ME, 0o700), dir('/shared', 0, 0o775), dir('/', 0, 0o755)], ME)).toContain('without the sticky bit');
  });

  it('judges a link by its owner, not by its mode (always 0777)', () => {
    expect(unsafeHomeReason([dir('/home/me/h', ME, 0o777, true), dir('/home/me', ME, 0o755), dir('/', 0, 0o755)], ME)).toBeNull();
    expect(unsafeHomeReason([dir('/home/me/h', 1001, 0o777, true), dir('/home/me', ME, 0o755), dir('/', 0, 0o755)], ME)).toContain('owned by uid 1001');
  });
});

const root = process.getuid?.() === 0;
const scratch = mkdtempSync(join(tmpdir(), 'hs-home-safety-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.runIf(root)('opening the store (as root, to give a directory to another uid)', () => {
  it('refuses a home inside a directory another user owns, with exit 2 and the remedy', () => {
    const theirs = join(scratch, 'theirs');
    mkdirSync(theirs);
    chownSync(theirs, 65534, 65534);
    expect(() => SqliteStore.open(join(theirs, 'home'))).toThrow(
      expect.objectContaining({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(`${theirs} is owned by uid 65534`) }),
    );
  });

  it('refuses a home reached through a link in such a directory, though the link leads somewhere safe', () => {
    const safe = join(scratch, 'safe');
    mkdirSync(safe, { mode: 0o700 });
    const theirs = join(scratch, 'theirs-link');
    mkdirSync(theirs);
    symlinkSync(safe, join(theirs, 'home'));
    chownSync(theirs, 65534, 65534);
    expect(() => SqliteStore.open(join(theirs, 'home'))).toThrow(expect.objectContaining({ code: 'STORE_UNAVAILABLE' }));
  });

  it('opens a home under a sticky world-writable directory', () => {
    const shared = join(scratch, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    SqliteStore.open(join(shared, 'home')).close();
  });
});
