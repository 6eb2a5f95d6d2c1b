/**
 * `refuseIfMoved` ends a waiter whose home was deleted, moved or replaced
 * (STORE_UNAVAILABLE). A path that is only unreadable for a moment must not:
 * a symlink in the home's path replaced by `rm` then `ln` (not atomically)
 * read as gone for one look, and the first version ended a batch's driver on
 * it (outside red team). A waiter's looks now need two in a row that say so;
 * a caller about to conclude something else (`now`) takes one look as it is.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

const scratch = mkdtempSync(join(tmpdir(), 'hs-moved-home-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const afterALook = () => new Promise((r) => setTimeout(r, 260));

function storeBehindALink(name: string): { store: SqliteStore; link: string; target: string } {
  const target = join(scratch, `${name}-real`);
  mkdirSync(target);
  const link = join(scratch, name);
  symlinkSync(target, link);
  return { store: SqliteStore.open(join(link, 'home')), link, target };
}

describe('a waiter asking whether its home moved', () => {
  it('is not ended by a link in the path that is gone for one look and back for the next', async () => {
    const { store, link, target } = storeBehindALink('swapped');
    try {
      await afterALook();
      unlinkSync(link);
      expect(() => store.refuseIfMoved()).not.toThrow();
      symlinkSync(target, link);
      await afterALook();
      expect(() => store.refuseIfMoved()).not.toThrow();
    } finally {
      store.close();
    }
  });

  it('is ended once two looks in a row find the home gone', async () => {
    const { store, link, target } = storeBehindALink('gone');
    try {
      renameSync(target, `${target}-moved`);
      await afterALook();
      expect(() => store.refuseIfMoved()).not.toThrow();
      await afterALook();
      expect(() => store.refuseIfMoved()).toThrow(/the state store this process opened is no longer at/);
      void link;
    } finally {
      store.close();
    }
  });

  it('is ended at the first look when it asks now', () => {
    const { store, target } = storeBehindALink('now');
    try {
      renameSync(target, `${target}-moved`);
      expect(() => store.refuseIfMoved({ now: true })).toThrow(/no longer at/);
    } finally {
      store.close();
    }
  });
});
