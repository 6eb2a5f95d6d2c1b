/**
 * Every directory and link met on the way to the home, each link followed
 * where it leads, must be owned by root or this user; the home writable by
 * its owner alone; a directory on the way writable by no one else unless
 * sticky (/tmp) or group-writable for a group only this user is in. A home
 * another user could change let that user swap its serve or supervisor
 * directory between a check and its use and take calls with the caller's
 * environment, also through a link of theirs met inside another link's
 * target (red team, session 11). Opening the store refuses such a home
 * (exit 2, naming the entry), before making anything in it.
 */
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupsOnlyOf, unsafeHomeReason, type PathOwnership } from '../../../../src/core/store/home-safety.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

const ME = 1000;
const entry = (path: string, uid: number, mode: number, extra: Partial<PathOwnership> = {}): PathOwnership => ({
  path,
  uid,
  gid: uid,
  mode: 0o40000 | mode,
  ...extra,
});
const root = entry('/', 0, 0o755);

describe("which homes are this user's alone", () => {
  it('accepts a 0700 home under directories of root or this user, and under a sticky world-writable one like /tmp', () => {
    expect(unsafeHomeReason([root, entry('/home', 0, 0o755), entry('/home/me', ME, 0o755), entry('/home/me/.headspace', ME, 0o700)], ME)).toBeNull();
    expect(unsafeHomeReason([root, entry('/tmp', 0, 0o1777), entry('/tmp/h', ME, 0o700)], ME)).toBeNull();
  });

  it('refuses an entry of another user on the way, naming it', () => {
    expect(unsafeHomeReason([root, entry('/srv/x', 1001, 0o755), entry('/srv/x/h', ME, 0o700)], ME)).toContain('/srv/x is owned by uid 1001');
  });

  it('refuses a home writable by its group or others, even sticky', () => {
    expect(unsafeHomeReason([root, entry('/h', ME, 0o1777)], ME)).toContain('/h is writable by its group or by others');
  });

  it('refuses a directory on the way that others can write without the sticky bit', () => {
    expect(unsafeHomeReason([root, entry('/shared', 0, 0o775), entry('/shared/h', ME, 0o700)], ME)).toContain('without the sticky bit');
  });

  it("accepts a directory group-writable for a group only this user is in, as Debian's StrictModes does", () => {
    const mine = entry('/home/me/work', ME, 0o775, { gid: 1000 });
    expect(unsafeHomeReason([root, mine, entry('/home/me/work/h', ME, 0o700)], ME, new Set([1000]))).toBeNull();
    expect(unsafeHomeReason([root, mine, entry('/home/me/work/h', ME, 0o700)], ME, new Set())).toContain('/home/me/work is writable');
  });

  it('reads the account files only for a group-writable directory no other rule decides (#20: every call judges the home)', () => {
    let reads = 0;
    const groups = () => {
      reads++;
      return new Set([1000]);
    };
    const tmp = entry('/tmp', 0, 0o1777);
    expect(unsafeHomeReason([root, tmp, entry('/tmp/h', ME, 0o700)], ME, groups)).toBeNull();
    expect(unsafeHomeReason([root, entry('/tmp', 0, 0o777), entry('/tmp/h', ME, 0o700)], ME, groups)).toContain('without the sticky bit');
    expect(reads).toBe(0);
    const mine = entry('/home/me/work', ME, 0o775, { gid: 1000 });
    expect(unsafeHomeReason([root, mine, entry('/home/me/work/a', ME, 0o775, { gid: 1000 }), entry('/home/me/work/a/h', ME, 0o700)], ME, groups)).toBeNull();
    expect(reads).toBe(1);
  });

  it('judges a link by its owner, not by its mode (always 0777)', () => {
    expect(unsafeHomeReason([root, entry('/home/me/h', ME, 0o777, { link: true }), entry('/data/h', ME, 0o700)], ME)).toBeNull();
    expect(unsafeHomeReason([root, entry('/tmp/x', 1001, 0o777, { link: true }), entry('/data/h', ME, 0o700)], ME)).toContain('owned by uid 1001');
  });
});

describe('groups only this user is in', () => {
  const passwd = 'root:x:0:0::/root:/bin/sh\nme:x:1000:1000::/home/me:/bin/sh\nyou:x:1001:1001::/home/you:/bin/sh\nshare:x:1002:1000::/:/bin/false\n';
  it('are a private primary group and groups listing only this user, never one another user has as primary', () => {
    const group = 'me:x:1000:\nyou:x:1001:\nsolo:x:2000:me\nteam:x:2001:me,you\nempty:x:2002:\n';
    expect([...groupsOnlyOf(1000, passwd.replace(/share:.*\n/, ''), group)].sort()).toEqual([1000, 2000]);
    // Another account with gid 1000 as its primary group: 1000 is no longer this user's alone.
    expect([...groupsOnlyOf(1000, passwd, group)].sort()).toEqual([2000]);
  });
});

const asRoot = process.getuid?.() === 0;
const scratch = mkdtempSync(join(tmpdir(), 'hs-home-safety-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe.runIf(asRoot)('opening the store (as root, to give entries to another uid)', () => {
  it('refuses a home inside a directory another user owns, making nothing there', () => {
    const theirs = join(scratch, 'theirs');
    mkdirSync(theirs);
    chownSync(theirs, 65534, 65534);
    expect(() => SqliteStore.open(join(theirs, 'home'))).toThrow(
      expect.objectContaining({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(`${theirs} is owned by uid 65534`) }),
    );
    expect(existsSync(join(theirs, 'home'))).toBe(false);
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

  it('refuses a home behind a link of ours whose target passes through a link of another user', () => {
    // ours -> <scratch>/hop/home, where hop is another user's link to a safe directory: swapping hop moves the home.
    const real = join(scratch, 'real');
    mkdirSync(join(real, 'home'), { recursive: true, mode: 0o700 });
    symlinkSync(real, join(scratch, 'hop'));
    lchownSync(join(scratch, 'hop'), 65534, 65534);
    symlinkSync(join(scratch, 'hop', 'home'), join(scratch, 'ours'));
    expect(() => SqliteStore.open(join(scratch, 'ours'))).toThrow(
      expect.objectContaining({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(`${join(scratch, 'hop')} is owned by uid 65534`) }),
    );
  });

  // The account files are read only when a directory on the way is group-writable (#20): both sides of that read.
  it("opens a home under a directory group-writable for root's own group, and refuses one for daemon's group", () => {
    const ours = join(scratch, 'group-ours');
    mkdirSync(ours);
    chownSync(ours, 0, 0);
    chmodSync(ours, 0o775);
    SqliteStore.open(join(ours, 'home')).close();
    const theirs = join(scratch, 'group-theirs');
    mkdirSync(theirs);
    chownSync(theirs, 0, 1);
    chmodSync(theirs, 0o775);
    expect(() => SqliteStore.open(join(theirs, 'home'))).toThrow(
      expect.objectContaining({ code: 'STORE_UNAVAILABLE', message: expect.stringContaining(`${theirs} is writable by its group or by others`) }),
    );
  });

  it('opens a home under a sticky world-writable directory', () => {
    const shared = join(scratch, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    SqliteStore.open(join(shared, 'home')).close();
  });
});
