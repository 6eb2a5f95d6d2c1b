/**
 * A fork is built on its parent's frozen layers, and until the child's own
 * record on the provider exists, nothing there says so: a destroy of the
 * parent in that window reclaimed the parent's storage and the fork still
 * reported success (red team, session 10). The store makes the two exclude
 * each other in their own transactions: destroy's lease is refused while a
 * fork of the workspace is being made by a live process, and a fork is
 * refused while a destroy of its parent holds the lease. A fork whose
 * process died (its intent open, its owner gone) blocks nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../../src/core/policy/policy.js';
import { SnapshotRecords } from '../../../../src/core/snapshots/snapshot-records.js';
import { currentOwner, type Owner } from '../../../../src/core/store/owner.js';
import { SqliteStore } from '../../../../src/core/store/sqlite-store.js';

let home: string;
let store: SqliteStore;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'hs-fork-race-'));
  store = SqliteStore.open(home);
  for (const id of ['parent', 'child']) {
    store.insertWorkspace({
      id,
      provider: 'fake',
      state: 'requested',
      profile: 'host',
      policy: defaultPolicy(),
      environmentDigest: null,
      purpose: null,
      owner: null,
      createdAt: 1,
      updatedAt: 1,
      expiresAt: null,
      lifecyclePath: ['requested'],
    });
  }
  store.moveWorkspace('parent', 'provisioning', 2);
  store.moveWorkspace('parent', 'ready', 3);
  store.moveWorkspace('child', 'provisioning', 2);
  new SnapshotRecords(store).addFork({
    childId: 'child',
    parentId: 'parent',
    parentCheckpointId: 'cp-1',
    parentDigest: 'sha256:x',
    childBaseId: 'cp-2',
    createdAt: 2,
  });
});
afterEach(() => {
  store.close();
  rmSync(home, { recursive: true, force: true });
});

const intent = (workspaceId: string, op: string, owner: Owner) => ({ workspaceId, op, provider: 'fake', owner, createdAt: 4, traceId: null });

describe('a fork being made and a destroy of its parent', () => {
  it("refuse the parent's removal while the fork's create is open under a live process", () => {
    store.openIntent({ ...intent('child', 'create', currentOwner()), jobId: null });
    expect(() => store.leaseWorkspace(intent('parent', 'remove', currentOwner()))).toThrow(
      expect.objectContaining({ code: 'WORKSPACE_BUSY', message: expect.stringContaining('its fork child is being made') }),
    );
  });

  it("allow the removal once the fork's create is settled, or when its process is gone", () => {
    const settled = store.openIntent({ ...intent('child', 'create', currentOwner()), jobId: null });
    store.settleIntent(settled, 'created', 5);
    store.openIntent({ ...intent('child', 'create', { pid: 2 ** 22 + 17, started: '1' }), jobId: null });
    expect(store.leaseWorkspace(intent('parent', 'remove', currentOwner()))).toBeGreaterThan(0);
  });

  it('refuse the fork while a destroy of the parent holds its lease, and once the parent is destroyed', () => {
    store.leaseWorkspace(intent('parent', 'remove', currentOwner()));
    expect(() => store.refuseForkOfRemoved('parent')).toThrow(expect.objectContaining({ code: 'WORKSPACE_BUSY' }));
    expect(() => store.refuseForkOfRemoved('no-such')).toThrow(expect.objectContaining({ code: 'WORKSPACE_NOT_FOUND' }));
  });
});
