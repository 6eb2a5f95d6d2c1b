/**
 * A checkpoint's digest is computed from its lower chain's by removing the
 * entries that changed and adding their new versions (overlay-layers.ts):
 * it must equal the digest of the whole new tree counted from scratch, in
 * any order, so that equal trees have equal digests however they were
 * reached. Seeded and bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyDelta, EMPTY_FACTS, type DigestEntry } from '../../../../src/providers/native/overlay-layers.js';

const entry = fc.record({
  path: fc.constantFrom('a', 'b', 'd', 'd/x', 'd/y', 'l'),
  type: fc.constantFrom('file' as const, 'directory' as const, 'symlink' as const),
  mode: fc.constantFrom(0o644, 0o755, 0o700, 0o777),
  size: fc.nat(1000),
  sha256: fc.constantFrom('00'.repeat(32), 'ab'.repeat(32), 'ff'.repeat(32)),
});
/** A tree: at most one entry per path. */
const tree = fc
  .uniqueArray(entry, { selector: (e) => e.path, maxLength: 6 })
  .map((entries) => entries.map((e): DigestEntry => (e.type === 'directory' ? { ...e, size: 0, sha256: null } : e)));

describe('the tree digest', () => {
  it('of a tree reached by a delta equals the digest of that tree counted from scratch', () => {
    fc.assert(
      fc.property(tree, tree, (before, after) => {
        const old = applyDelta(EMPTY_FACTS, [], before);
        // The delta: every path in either tree, as it was and as it is.
        const viaDelta = applyDelta(old, before, after);
        expect(viaDelta).toEqual(applyDelta(EMPTY_FACTS, [], after));
      }),
      { seed: 0x5a9, numRuns: 300 },
    );
  });

  it('does not depend on the order entries are counted in', () => {
    fc.assert(
      fc.property(tree, (entries) => {
        expect(applyDelta(EMPTY_FACTS, [], [...entries].reverse())).toEqual(applyDelta(EMPTY_FACTS, [], entries));
      }),
      { seed: 0x5aa, numRuns: 200 },
    );
  });

  it('tells a mode, a type or a content change apart from no change', () => {
    const file: DigestEntry = { path: 'a', type: 'file', mode: 0o644, size: 1, sha256: 'ab'.repeat(32) };
    const base = applyDelta(EMPTY_FACTS, [], [file]);
    for (const changed of [
      { ...file, mode: 0o755 },
      { ...file, type: 'symlink' as const },
      { ...file, sha256: 'ff'.repeat(32) },
      { ...file, path: 'b' },
    ])
      expect(applyDelta(EMPTY_FACTS, [], [changed]).digest).not.toBe(base.digest);
    expect(base).toEqual({ fileCount: 1, bytes: 1, digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
  });
});
