/**
 * A fork sees each inherited layer through an idmapped bind that maps the
 * uid and gid of the workspace that wrote the layer to the fork's job
 * identity (#14: a fork could not change the files it inherited). The plan
 * names every bind relative to the image area, keys it by store and layer
 * (every workspace's first upper has the same name), and leaves the
 * workspace's own layers, and layers with no recorded owner, as they are.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IDMAP_NAME, planLayerIdmaps } from '../../../../src/providers/native/layer-idmaps.js';
import { overlayOptions, type LayerRef } from '../../../../src/providers/native/overlay-layers.js';

const id = (n: number) => ({ uid: 600_000 + n, gid: 600_000 + n });
const ref = (store: string, layer: string, owner?: number): LayerRef => (owner === undefined ? { store, layer } : { store, layer, owner: id(owner) });

describe('idmapped lower layers of a fork', () => {
  it('maps each ancestor layer from its owner to the fork, keyed by store and layer, and keeps its own layers unmapped', () => {
    const lowers = [ref('fa', 'L1111111111111111', 2), ref('fa', 'L0000000000000000', 2), ref('pa', 'L0000000000000000', 1)];
    const plan = planLayerIdmaps('gb', id(3), lowers);
    expect(plan.lowerPaths).toEqual(['gb/idmap/fa.L1111111111111111', 'gb/idmap/fa.L0000000000000000', 'gb/idmap/pa.L0000000000000000']);
    expect(plan.binds.map((bind) => bind.argv)).toEqual([
      ['--idmap-bind', 'fa/layers/L1111111111111111', 'gb/idmap/fa.L1111111111111111', '600002', '600003', '600002', '600003'],
      ['--idmap-bind', 'fa/layers/L0000000000000000', 'gb/idmap/fa.L0000000000000000', '600002', '600003', '600002', '600003'],
      ['--idmap-bind', 'pa/layers/L0000000000000000', 'gb/idmap/pa.L0000000000000000', '600001', '600003', '600001', '600003'],
    ]);
    expect(
      overlayOptions({ store: 'gb', upper: 'L2222222222222222', lowers, lowerPaths: plan.lowerPaths }, 'gb/empty').startsWith(
        'lowerdir=gb/idmap/fa.L1111111111111111:gb/idmap/fa.L0000000000000000:gb/idmap/pa.L0000000000000000,upperdir=gb/layers/L2222222222222222,',
      ),
    ).toBe(true);
  });

  it("leaves the parent's own layers, and layers made before owners were recorded, unmapped", () => {
    const plan = planLayerIdmaps('pa', id(1), [ref('pa', 'L1111111111111111', 1), ref('old', 'L0000000000000000')]);
    expect(plan).toEqual({ lowerPaths: ['pa/layers/L1111111111111111', 'old/layers/L0000000000000000'], binds: [] });
  });

  it('never maps root, never names a host path, and plans one bind per foreign layer', () => {
    const layer = fc.stringMatching(/^L[0-9a-f]{16}$/);
    const store = fc.constantFrom('pa', 'fa', 'gb', 'w.1');
    const owner = fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined });
    fc.assert(
      fc.property(fc.array(fc.tuple(store, layer, owner), { maxLength: 8 }), fc.integer({ min: 1, max: 4 }), (refs, me) => {
        const lowers = refs.map(([s, l, o]) => (o === undefined ? ref(s, l) : o === 0 ? { store: s, layer: l, owner: { uid: 0, gid: 0 } } : ref(s, l, o)));
        const plan = planLayerIdmaps('me', id(me), lowers);
        expect(plan.lowerPaths).toHaveLength(lowers.length);
        for (const path of plan.lowerPaths) expect(path.startsWith('/')).toBe(false);
        for (const bind of plan.binds) {
          expect(IDMAP_NAME.test(bind.name)).toBe(true);
          expect(
            bind.argv
              .slice(3)
              .map(Number)
              .every((n) => n > 0),
          ).toBe(true);
          expect(bind.argv[4]).toBe(`${id(me).uid}`);
        }
        expect(new Set(plan.binds.map((bind) => bind.target)).size).toBe(plan.binds.length);
        const foreign = new Set(
          lowers.filter((r) => r.owner !== undefined && r.owner.uid > 0 && r.owner.uid !== id(me).uid).map((r) => `${r.store}.${r.layer}`),
        );
        expect(plan.binds.map((bind) => bind.name).sort()).toEqual([...foreign].sort());
      }),
      { seed: 14, numRuns: 200 },
    );
  });
});
