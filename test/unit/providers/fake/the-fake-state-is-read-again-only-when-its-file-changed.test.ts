/**
 * The fake provider keeps its state in one JSON file shared by processes; a
 * read reuses what it parsed while the file is unchanged (a running job asks
 * whether it was stopped every 20 ms, and each ask parsed every workspace's
 * files: a 2 s job beside 8 MB of state took 3.2 s of CPU, now 0.9 s). A
 * save by another store is seen at the next read, and a change that threw
 * before it was saved is not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeStore } from '../../../../src/providers/fake/fake-state.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const workspace = () => ({ profile: 'host', files: {}, storageBytes: 0, storageBudget: 1024 });

describe('the fake state file', () => {
  it('is seen as another store saved it', () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-fake-state-'));
    const path = join(dir, 'state.json');
    const a = fakeStore(path);
    const b = fakeStore(path);
    a.mutate((s) => (s.workspaces.one = workspace()));
    expect(Object.keys(b.load().workspaces)).toEqual(['one']);
    expect(a.load()).toBe(a.load()); // unchanged: the same parse
    b.mutate((s) => (s.workspaces.two = workspace()));
    expect(Object.keys(a.load().workspaces).sort()).toEqual(['one', 'two']);
  });

  it('does not keep a change that threw before it was saved', () => {
    dir = mkdtempSync(join(tmpdir(), 'hs-fake-state-'));
    const a = fakeStore(join(dir, 'state.json'));
    a.mutate((s) => (s.workspaces.one = workspace()));
    expect(() =>
      a.mutate((s) => {
        s.workspaces.half = workspace();
        throw new Error('refused midway');
      }),
    ).toThrow('refused midway');
    expect(Object.keys(a.load().workspaces)).toEqual(['one']);
  });
});
