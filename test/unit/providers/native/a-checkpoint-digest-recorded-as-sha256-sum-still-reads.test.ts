/**
 * Native tree digests are written `sha256:<hex>` like every other digest;
 * a checkpoint recorded before that carries `sha256-sum:<hex>`, and a later
 * checkpoint built on it (its digest follows from that one by the delta)
 * reads it and comes out equal to the same tree's digest written anew.
 */
import { describe, expect, it } from 'vitest';
import { applyDelta, EMPTY_FACTS, type DigestEntry } from '../../../../src/providers/native/overlay-layers.js';

describe('a native tree digest recorded as sha256-sum', () => {
  it('still reads, and the next checkpoint is written sha256: with the same sum', () => {
    const a: DigestEntry = { path: 'a', type: 'file', mode: 0o644, size: 1, sha256: 'ab'.repeat(32) };
    const b: DigestEntry = { path: 'b', type: 'file', mode: 0o644, size: 2, sha256: 'cd'.repeat(32) };
    const now = applyDelta(EMPTY_FACTS, [], [a]);
    const legacy = { ...now, digest: now.digest.replace(/^sha256:/, 'sha256-sum:') };
    const next = applyDelta(legacy, [], [b]);
    expect(next).toEqual(applyDelta(now, [], [b]));
    expect(next.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
