/**
 * The overlay mount options name every layer relative to the image area (so
 * no host path reaches a job's mountinfo), pad a lowers-only view to the two
 * lowers overlayfs needs, and the chain planning finds what two chains do
 * not share and which layers nothing references any more.
 */
import { describe, expect, it } from 'vitest';
import { overlayOptions, unreferencedLayers, unsharedLayers, type LayerRef } from '../../../../src/providers/native/overlay-layers.js';
import { changeOf } from '../../../../src/providers/native/tree-compare.js';

const ref = (store: string, layer: string): LayerRef => ({ store, layer });

describe('overlay planning', () => {
  it('names the upper, the work dir and every lower relative to the image area, never by a host path', () => {
    const options = overlayOptions({ store: 'child', upper: 'Lc', lowers: [ref('parent', 'L2'), ref('parent', 'L1')] }, 'child/empty');
    expect(options).toBe(
      'lowerdir=parent/layers/L2:parent/layers/L1,upperdir=child/layers/Lc,workdir=child/work,index=off,metacopy=off,redirect_dir=off,xino=off',
    );
    expect(options).not.toMatch(/(^|[=:,])\//);
  });

  it('gives a workspace with no checkpoint the empty directory as its lower', () => {
    expect(overlayOptions({ store: 'w', upper: 'L0', lowers: [] }, 'w/empty')).toMatch(/^lowerdir=w\/empty,upperdir=w\/layers\/L0,/);
  });

  it('mounts a read-only view of one layer with the empty directory as the second lower', () => {
    expect(overlayOptions({ store: 'w', upper: null, lowers: [ref('w', 'L1')] }, 'w/empty')).toMatch(/^ro,lowerdir=w\/layers\/L1:w\/empty,/);
  });

  it('finds the layers two chains do not share below their common base', () => {
    const base = [ref('p', 'L1'), ref('p', 'L0')];
    expect(unsharedLayers([ref('w', 'U'), ref('w', 'L3'), ...base], [ref('w', 'L2'), ...base])).toEqual({
      onlyA: [ref('w', 'U'), ref('w', 'L3')],
      onlyB: [ref('w', 'L2')],
    });
    expect(unsharedLayers(base, base)).toEqual({ onlyA: [], onlyB: [] });
  });

  it('deletes only candidates no chain references, each once', () => {
    const live = [
      [ref('w', 'L2'), ref('p', 'L1')],
      [ref('c', 'U'), ref('p', 'L1')],
    ];
    expect(unreferencedLayers([ref('p', 'L1'), ref('w', 'L3'), ref('w', 'L3'), ref('p', 'L0')], live)).toEqual([ref('w', 'L3'), ref('p', 'L0')]);
  });
});

describe('one path compared between two views', () => {
  const file = { path: 'f', type: 'file' as const, mode: 0o644, size: 3, sha256: 'aa' };
  it('is a create, a delete, a modify or nothing', () => {
    expect(changeOf('f', undefined, file)).toEqual({ path: 'f', kind: 'create', type: 'file', size: 3, sha256: 'aa', mode: 0o644, previousSha256: null });
    expect(changeOf('f', file, undefined)).toEqual({ path: 'f', kind: 'delete', type: 'file', size: 0, sha256: null, mode: null, previousSha256: 'aa' });
    expect(changeOf('f', file, { ...file, mode: 0o755 })).toMatchObject({ kind: 'modify', mode: 0o755, previousSha256: 'aa' });
    expect(changeOf('f', file, { ...file })).toBeUndefined();
  });
});
