/**
 * Each workspace's job identity slot (its jobs' host uid is 600000 + slot)
 * is allocated by the store when the workspace is recorded: no two
 * workspaces that are not destroyed ever hold the same slot (failed and
 * half-removed ones keep theirs), a destroyed workspace's slot is free
 * again, running out is a clear JOB_IDS_EXHAUSTED error, and workspaces
 * recorded before slots existed keep none (they run as the legacy uid).
 * Creates from several processes at once never collide: the allocation runs
 * in the insert's IMMEDIATE transaction.
 */
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { jobUserOfSlot, JOB_SLOT_COUNT, LEGACY_JOB_UID } from '../../../../src/core/job-identity.js';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { MIGRATIONS } from '../../../../src/core/store/migrations.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';
import { assertBuilt, REPO } from '../../../helpers/cli.js';

let home: string;
afterEach(() => rmSync(home, { recursive: true, force: true }));

function record(id: string) {
  return {
    id,
    provider: 'fake',
    state: 'requested' as const,
    profile: 'host',
    policy: defaultPolicy(),
    environmentDigest: null,
    purpose: null,
    owner: null,
    createdAt: 1,
    updatedAt: 1,
    expiresAt: null,
    lifecyclePath: ['requested' as const],
  };
}

/** Along the removal path from wherever it is (requested or failed) to destroyed. */
function destroy(store: SqliteStore, id: string): void {
  if (store.getWorkspace(id)?.state !== 'failed') store.moveWorkspace(id, 'failed', 2);
  store.moveWorkspace(id, 'destroyed', 2);
}

describe('job identity slots', () => {
  it('gives each new workspace the lowest slot no live workspace holds', () => {
    home = mkdtempSync(join(tmpdir(), 'hs-slots-'));
    const store = SqliteStore.open(home);
    expect(['a', 'b', 'c'].map((id) => store.insertWorkspace(record(id)).jobSlot)).toEqual([1, 2, 3]);
    expect(store.getWorkspace('b')?.jobSlot).toBe(2);
    store.close();
  });

  it('never reuses the slot of a failed or half-removed workspace, and reuses it once destroyed', () => {
    home = mkdtempSync(join(tmpdir(), 'hs-slots-'));
    const store = SqliteStore.open(home);
    store.insertWorkspace(record('a'));
    store.insertWorkspace(record('b'));
    store.moveWorkspace('a', 'provisioning', 2);
    store.moveWorkspace('a', 'failed', 2);
    expect(store.insertWorkspace(record('c')).jobSlot).toBe(3);
    destroy(store, 'b');
    expect(store.insertWorkspace(record('d')).jobSlot).toBe(2);
    // The same id again, once destroyed: its old row goes and the lowest free slot is taken.
    destroy(store, 'a');
    expect(store.insertWorkspace(record('a')).jobSlot).toBe(1);
    store.close();
  });

  it('refuses a workspace past the last slot with JOB_IDS_EXHAUSTED and records nothing', () => {
    home = mkdtempSync(join(tmpdir(), 'hs-slots-'));
    const store = SqliteStore.open(home);
    store.insertWorkspace(record('a'), 2);
    store.insertWorkspace(record('b'), 2);
    expect(() => store.insertWorkspace(record('c'), 2)).toThrow(
      expect.objectContaining({ code: 'JOB_IDS_EXHAUSTED', category: 'environment_error', hint: expect.stringContaining('destroy') }),
    );
    expect(store.getWorkspace('c')).toBeUndefined();
    destroy(store, 'a');
    expect(store.insertWorkspace(record('c'), 2).jobSlot).toBe(1);
    store.close();
  });

  it('refuses a second live holder of a slot at the database level', () => {
    home = mkdtempSync(join(tmpdir(), 'hs-slots-'));
    const store = SqliteStore.open(home);
    store.insertWorkspace(record('a'));
    store.insertWorkspace(record('b'));
    store.close();
    const db = new Database(join(home, 'state.db'));
    expect(() => db.prepare("UPDATE workspaces SET job_slot = 1 WHERE id = 'b'").run()).toThrow(/UNIQUE/);
    db.close();
  });

  it('keeps workspaces recorded before slots existed on the legacy uid, and starts new ones above it', () => {
    home = mkdtempSync(join(tmpdir(), 'hs-slots-'));
    const db = new Database(join(home, 'state.db'));
    for (let v = 0; v < 3; v++) db.exec(MIGRATIONS[v]!);
    db.pragma('user_version = 3');
    db.prepare(
      "INSERT INTO workspaces (id, provider, state, profile, policy, created_at, updated_at, lifecycle_path) VALUES ('old', 'native', 'ready', 'host', ?, 1, 1, '[\"ready\"]')",
    ).run(JSON.stringify(defaultPolicy()));
    db.close();
    const store = SqliteStore.open(home);
    expect(store.getWorkspace('old')?.jobSlot).toBeNull();
    expect(store.insertWorkspace(record('new')).jobSlot).toBe(1);
    store.close();
    expect(jobUserOfSlot(1)).toEqual({ uid: LEGACY_JOB_UID + 1, gid: LEGACY_JOB_UID + 1 });
    expect(jobUserOfSlot(JOB_SLOT_COUNT).uid).toBe(665_535);
    expect(() => jobUserOfSlot(0)).toThrow(RangeError);
  });

  it('never gives two processes creating at once the same slot', async () => {
    assertBuilt();
    home = mkdtempSync(join(tmpdir(), 'hs-slots-'));
    SqliteStore.open(home).close();
    const storeUrl = pathToFileURL(join(REPO, 'dist', 'core', 'store', 'sqlite-store.js')).href;
    const policy = JSON.stringify(defaultPolicy());
    // Each child waits for a start time so the inserts really overlap, then records 30 workspaces.
    const script = `const { SqliteStore } = await import(${JSON.stringify(storeUrl)});
const [home, tag, at] = process.argv.slice(1);
const store = SqliteStore.open(home);
while (Date.now() < Number(at)) {}
for (let i = 0; i < 30; i++) store.insertWorkspace({ id: tag + '-' + i, provider: 'fake', state: 'requested', profile: 'host', policy: ${policy}, environmentDigest: null, purpose: null, owner: null, createdAt: 1, updatedAt: 1, expiresAt: null, lifecyclePath: ['requested'] });
store.close();`;
    const at = String(Date.now() + 1500);
    const codes = await Promise.all(
      ['p', 'q', 'r'].map(
        (tag) =>
          new Promise<number | null>((resolve) => {
            const child = spawn(process.execPath, ['--input-type=module', '-e', script, home, tag, at], { stdio: ['ignore', 'ignore', 'inherit'] });
            child.on('close', resolve);
          }),
      ),
    );
    expect(codes).toEqual([0, 0, 0]);
    const store = SqliteStore.open(home);
    const slots = store.listWorkspaces().map((w) => w.jobSlot);
    store.close();
    expect(slots).toHaveLength(90);
    expect(new Set(slots).size).toBe(90);
    expect([...slots].sort((x, y) => x! - y!)).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
  });
});
