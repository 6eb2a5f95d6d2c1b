/**
 * Creates racing each other cannot together promise more storage than the
 * host has (red team round 3): each checked the host's free space before
 * either image existed, and two 60 GiB workspaces were accepted where one
 * fit. The check is made again inside the transaction that records the
 * workspace, counting every live workspace's storage budget as promised.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { HostCapacity } from '../../../../src/core/provider.js';
import { makeTestEngine, type TestEngine } from '../../../helpers/engine.js';

const GiB = 1024 * 1024 * 1024;
/** 78.5 GiB free on a 252 GB disk (margin 12.6 GB), no image made yet: what each racing create saw. */
const host: HostCapacity = { storage: { path: '/images', freeBytes: 78.5 * GiB, totalBytes: 252e9, committedBytes: 0 } };

let t: TestEngine;
afterEach(() => t.cleanup());

describe('creates side by side', () => {
  it('accept one 60 GiB workspace of the two that do not both fit', async () => {
    t = makeTestEngine({ capacity: host });
    const results = await Promise.allSettled([60, 60].map((g, i) => t.engine.create({ workspaceId: `big${i}`, budget: { storageBytes: g * GiB } })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'POLICY_DENIED', message: expect.stringContaining('already promised') });
  });
});
