/**
 * The native provider's SnapshotOps (#14): checkpoint, restore, verify, drop,
 * fork and changes on the layered filesystem (overlay-layers.ts plans it,
 * layered-storage.ts mounts it, tree-compare.ts compares two views). Every
 * operation costs what changed since the chains parted, never the tree.
 *
 * Crash safety, by the order of the steps: a new layer directory is made
 * first (an orphan if we die: a leftover), meta.json is rewritten next (the
 * commit point for the workspace's files, whose merged view the change
 * never alters at checkpoint), the checkpoint's manifest last (the commit
 * point for the checkpoint: without it, verify is false). Layers are
 * deleted only after nothing references them any more.
 *
 * The engine calls checkpoint, restore and fork only while no job runs in
 * the workspace (the overlay is remounted; a busy mount fails closed).
 */
import { lstat, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EngineError, ProviderError } from '../../core/errors.js';
import { ID_PATTERN } from '../../core/ids.js';
import type { WorkspaceDescriptor, WorkspaceSpec } from '../../core/provider.js';
import type { CheckpointReader, SnapshotOps, TreeChange, TreeFacts } from '../../core/snapshots/snapshot-ops.js';
import { createNativeWorkspace } from './create-native-workspace.js';
import type { CheckpointManifest } from './layered-storage.js';
import type { NativeParts } from './native-parts.js';
import { applyDelta, unreferencedLayers, unsharedLayers, type LayerRef, type LayerStack } from './overlay-layers.js';
import { openSafeFs } from './safe-fs.js';
import { collectPaths, compareBudget, compareViews } from './tree-compare.js';
import type { WorkspaceMeta } from './workspace-meta.js';

export function nativeSnapshots(parts: NativeParts): SnapshotOps {
  const { layout, storage, users, mountBase } = parts;
  const { layered } = storage;
  const mergedDir = (id: string) => join(mountBase, 'fs', id);

  /** The real data a view of `chain` can hold: the sizes of its distinct stores' images (the workspace's own at least). */
  function viewBytes(id: string, chain: readonly LayerRef[]): number {
    const stores = new Set([id, ...chain.map((ref) => ref.store)]);
    return [...stores].reduce((sum, store) => sum + (layered.imageBytes(store) ?? 0), 0);
  }

  async function layeredMeta(id: string): Promise<WorkspaceMeta & { layers: LayerStack }> {
    const meta = await storage.requireMeta(id);
    if (meta.layers === undefined)
      throw new EngineError('POLICY_DENIED', `native workspace ${id} was made without the layered filesystem, so it has no snapshots`, {
        hint: 'snapshots need a workspace made by this version on a host with loop devices and overlayfs; make a new workspace and copy the files over',
      });
    return meta as WorkspaceMeta & { layers: LayerStack };
  }

  async function manifestOf(id: string, checkpointId: string): Promise<CheckpointManifest> {
    if (!ID_PATTERN.test(checkpointId))
      throw new EngineError('BAD_ID', `${JSON.stringify(checkpointId.slice(0, 70))} is not a valid checkpoint id`, {
        hint: 'checkpoint ids are 1–64 characters: a letter or digit, then letters, digits, ".", "_" or "-"',
      });
    const manifest = await layered.readManifest(id, checkpointId);
    if (manifest === undefined)
      throw new ProviderError(`the data of checkpoint ${checkpointId} of native workspace ${id} is missing`, {
        hint: 'the checkpoint is invalid: it was dropped, damaged or never finished; list the checkpoints and use another',
      });
    return manifest;
  }

  /** Points the workspace's overlay at `next` (a new empty upper on a chain); meta.json is its commit point (layered-storage.ts). */
  async function switchStack(id: string, meta: WorkspaceMeta, next: LayerStack, view?: string): Promise<void> {
    // The meta written is the one renamed into place: the stack's idmapped lowers are planned for its job identity.
    const tmp = `${layout.metaPath(id)}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ ...meta, layers: next }, null, 2), { mode: 0o600 });
    try {
      await layered.switchStack(id, next, tmp, users.of(meta), view);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  /** Deletes the layers among `candidates` that no chain references any more, then any retained store left unused. */
  async function collect(candidates: LayerRef[]): Promise<void> {
    await layered.deleteLayers(unreferencedLayers(candidates, await layered.liveChains()));
    await layered.collectStores();
  }

  return {
    async checkpoint(id, checkpointId): Promise<TreeFacts> {
      const meta = await layeredMeta(id);
      if ((await layered.readManifest(id, checkpointId)) !== undefined)
        throw new ProviderError(`native workspace ${id} already has a checkpoint ${checkpointId}`, { hint: 'this is a headspace bug: checkpoint ids are new' });
      const stack = meta.layers;
      // Its owner is recorded: a fork made from this chain sees the layer through an idmapped bind (layer-idmaps.ts).
      const { uid, gid } = users.of(meta);
      const upper: LayerRef = { store: id, layer: stack.upper, owner: { uid, gid } };
      // What changed since the chain under the upper: the upper's own paths, compared with that chain's view.
      const candidates = new Set<string>();
      const budget = compareBudget(viewBytes(id, stack.lowers), viewBytes(id, [upper, ...stack.lowers]));
      await collectPaths(layered.layerDir(upper), candidates, budget);
      let facts = stack.lowerFacts;
      let view: { root: string; release(): Promise<void>; mounted: boolean } | undefined;
      if (candidates.size > 0) {
        view = await layered.mountView(id, stack.lowers);
        try {
          const delta = await compareViews(view.root, mergedDir(id), candidates, budget);
          facts = applyDelta(stack.lowerFacts, delta.before, delta.after);
        } catch (error) {
          await view.release();
          throw error;
        }
      }
      const chain = [upper, ...stack.lowers];
      const fresh = await layered.makeLayer(id, users.of(meta));
      try {
        // The view goes in the same spawned shell as the switch (one spawn fewer).
        await switchStack(id, meta, { upper: fresh, lowers: chain, lowerFacts: facts }, view?.mounted ? view.root : undefined);
      } catch (error) {
        await view?.release();
        throw error;
      }
      await layered.writeManifest(id, { schema: 1, checkpointId, chain, facts });
      return facts;
    },

    async restore(id, checkpointId) {
      const meta = await layeredMeta(id);
      const manifest = await manifestOf(id, checkpointId);
      for (const ref of manifest.chain) await layered.ensureStore(ref.store);
      const old = meta.layers;
      const fresh = await layered.makeLayer(id, users.of(meta));
      await switchStack(id, meta, { upper: fresh, lowers: manifest.chain, lowerFacts: manifest.facts });
      await collect([{ store: id, layer: old.upper }, ...old.lowers]);
    },

    async verify(id, checkpointId, digest) {
      try {
        const manifest = await layered.readManifest(id, checkpointId);
        if (manifest === undefined || manifest.facts.digest !== digest) return false;
        for (const ref of manifest.chain) {
          await layered.ensureStore(ref.store);
          if (!(await isDirectory(layered.layerDir(ref)))) return false;
        }
        return true;
      } catch {
        return false;
      }
    },

    async drop(id, checkpointId) {
      const manifest = await layered.readManifest(id, checkpointId);
      if (manifest === undefined) return;
      await rm(join(layered.checkpointsDir(id), `${checkpointId}.json`), { force: true });
      // Forks made from it (and later checkpoints) still reference its layers: only what nothing uses goes.
      await collect(manifest.chain);
    },

    async fork(parentId, fromCheckpointId, spec: WorkspaceSpec, childBaseId): Promise<WorkspaceDescriptor> {
      await layeredMeta(parentId);
      const manifest = await manifestOf(parentId, fromCheckpointId);
      const child = await createNativeWorkspace(parts, spec, { lowers: manifest.chain, lowerFacts: manifest.facts });
      await layered.writeManifest(spec.workspaceId, { schema: 1, checkpointId: childBaseId, chain: manifest.chain, facts: manifest.facts });
      return child;
    },

    async changes(id, checkpointId, limit): Promise<{ changes: TreeChange[]; truncated: boolean }> {
      const meta = await layeredMeta(id);
      const manifest = await manifestOf(id, checkpointId);
      const now = [{ store: id, layer: meta.layers.upper }, ...meta.layers.lowers];
      const { onlyA, onlyB } = unsharedLayers(now, manifest.chain);
      const candidates = new Set<string>();
      const budget = compareBudget(viewBytes(id, manifest.chain), viewBytes(id, now));
      for (const ref of [...onlyA, ...onlyB]) {
        await layered.ensureStore(ref.store);
        await collectPaths(layered.layerDir(ref), candidates, budget);
      }
      if (candidates.size === 0) return { changes: [], truncated: false };
      const view = await layered.mountView(id, manifest.chain);
      try {
        const { changes } = await compareViews(view.root, mergedDir(id), candidates, budget);
        return { changes: changes.slice(0, Math.max(0, limit)), truncated: changes.length > limit };
      } finally {
        await view.release();
      }
    },

    async openAt(id, checkpointId): Promise<CheckpointReader> {
      const meta = await layeredMeta(id);
      const manifest = await manifestOf(id, checkpointId);
      const view = await layered.mountView(id, manifest.chain);
      try {
        const files = await openSafeFs(view.root, users.of(meta));
        let released = false;
        return {
          read: (path, chunkBytes) => files.read(path, chunkBytes),
          async close() {
            if (released) return;
            released = true;
            await view.release();
          },
        };
      } catch (error) {
        await view.release();
        throw error;
      }
    },
  };
}

async function isDirectory(path: string): Promise<boolean> {
  return lstat(path).then(
    (info) => info.isDirectory(),
    () => false,
  );
}
