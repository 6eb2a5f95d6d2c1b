/**
 * The fake provider's snapshots (#14), in memory: a checkpoint is a copy of
 * the workspace's tree (files, links, modes), kept beside it; restore puts
 * the copy back; a fork is a new workspace holding a copy. The same
 * semantics the native mechanism gives, so the engine's snapshot verbs and
 * their laws, and the conformance suite's snapshot cases, run on both.
 */
import { createHash } from 'node:crypto';
import { EngineError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { normalizeWorkspacePath } from '../../core/paths.js';
import type { ReadStream, WorkspaceDescriptor } from '../../core/provider.js';
import type { CheckpointReader, SnapshotOps, TreeChange, TreeFacts } from '../../core/snapshots/snapshot-ops.js';
import { need, recount, type FakeStore, type FakeTree, type FakeWorkspace } from './fake-state.js';

/** A file without a recorded mode is a plain 0644 one; a link reads 0777, as Linux shows links. */
const FILE_MODE = 0o644;
const LINK_MODE = 0o777;

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** One entry of a tree: its type, content digest, size and mode. */
interface Entry {
  type: 'file' | 'symlink';
  sha256: string;
  size: number;
  mode: number;
}

function entries(tree: FakeTree): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const [path, b64] of Object.entries(tree.files)) {
    const bytes = Buffer.from(b64, 'base64');
    out.set(path, { type: 'file', sha256: sha(bytes), size: bytes.length, mode: tree.modes[path] ?? FILE_MODE });
  }
  for (const [path, target] of Object.entries(tree.links))
    out.set(path, { type: 'symlink', sha256: sha(target), size: Buffer.byteLength(target), mode: LINK_MODE });
  return out;
}

const treeOf = (ws: FakeWorkspace): FakeTree => ({ files: { ...ws.files }, links: { ...ws.links }, modes: { ...ws.modes } });

/** The tree digest: equal trees (contents, link texts, modes), equal digests. */
function factsOf(tree: FakeTree): TreeFacts {
  const hash = createHash('sha256');
  let bytes = 0;
  const all = entries(tree);
  for (const path of [...all.keys()].sort()) {
    const e = all.get(path)!;
    bytes += e.size;
    hash.update(`${path}\0${e.type}\0${e.mode.toString(8)}\0${e.sha256}\n`);
  }
  return { fileCount: all.size, bytes, digest: `sha256:${hash.digest('hex')}` };
}

function checkpointOf(ws: FakeWorkspace, workspaceId: string, checkpointId: string): FakeTree {
  const tree = ws.checkpoints?.[checkpointId];
  if (tree === undefined)
    throw new EngineError('FILE_NOT_FOUND', `the fake provider holds no data for checkpoint ${checkpointId} of workspace ${workspaceId}`, {
      hint: 'inspect the workspace for its checkpoints',
      action: nextAction('inspect', { handle: workspaceId }),
    });
  return tree;
}

export function fakeSnapshots(store: FakeStore, environmentDigest: string): SnapshotOps {
  return {
    async checkpoint(workspaceId, checkpointId) {
      return store.mutate((state) => {
        const ws = need(state, workspaceId);
        const tree = treeOf(ws);
        ws.checkpoints = { ...ws.checkpoints, [checkpointId]: tree };
        return factsOf(tree);
      });
    },
    async restore(workspaceId, checkpointId) {
      store.mutate((state) => {
        const ws = need(state, workspaceId);
        const tree = checkpointOf(ws, workspaceId, checkpointId);
        ws.files = { ...tree.files };
        ws.links = { ...tree.links };
        ws.modes = { ...tree.modes };
        recount(ws);
      });
    },
    async verify(workspaceId, checkpointId, digest) {
      const tree = store.load().workspaces[workspaceId]?.checkpoints?.[checkpointId];
      return tree !== undefined && factsOf(tree).digest === digest;
    },
    async drop(workspaceId, checkpointId) {
      store.mutate((state) => {
        const ws = state.workspaces[workspaceId];
        if (ws?.checkpoints) delete ws.checkpoints[checkpointId];
      });
    },
    async fork(parentId, fromCheckpointId, spec, childBaseId): Promise<WorkspaceDescriptor> {
      return store.mutate((state) => {
        const parent = need(state, parentId);
        const tree = checkpointOf(parent, parentId, fromCheckpointId);
        if (state.workspaces[spec.workspaceId])
          throw new EngineError('WORKSPACE_EXISTS', `the fake provider already has workspace ${spec.workspaceId}`, { hint: 'choose another workspace id' });
        const child: FakeWorkspace = {
          profile: spec.profile,
          files: { ...tree.files },
          links: { ...tree.links },
          modes: { ...tree.modes },
          storageBytes: 0,
          storageBudget: spec.policy.budget.storageBytes,
          jobs: {},
          jobUser: { ...spec.jobUser },
          checkpoints: { [childBaseId]: { files: { ...tree.files }, links: { ...tree.links }, modes: { ...tree.modes } } },
        };
        recount(child);
        state.workspaces[spec.workspaceId] = child;
        return { workspaceId: spec.workspaceId, state: 'ready', profile: spec.profile, environmentDigest, storageBytes: child.storageBytes };
      });
    },
    async changes(workspaceId, checkpointId, limit) {
      const ws = need(store.load(), workspaceId);
      const before = entries(checkpointOf(ws, workspaceId, checkpointId));
      const now = entries(treeOf(ws));
      const all: TreeChange[] = [];
      for (const path of new Set([...before.keys(), ...now.keys()])) {
        const old = before.get(path);
        const cur = now.get(path);
        if (old && cur && old.type === cur.type && old.sha256 === cur.sha256 && old.mode === cur.mode) continue;
        if (!cur) {
          all.push({ path, kind: 'delete', type: old!.type, size: 0, sha256: null, mode: null, previousSha256: old!.sha256 });
          continue;
        }
        all.push({
          path,
          kind: old ? 'modify' : 'create',
          type: cur.type,
          size: cur.size,
          sha256: cur.sha256,
          mode: cur.mode,
          previousSha256: old?.sha256 ?? null,
        });
      }
      all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return { changes: all.slice(0, Math.max(0, limit)), truncated: all.length > limit };
    },
    async openAt(workspaceId, checkpointId): Promise<CheckpointReader> {
      const tree = checkpointOf(need(store.load(), workspaceId), workspaceId, checkpointId);
      return {
        async read(path, chunkBytes = 1024 * 1024): Promise<ReadStream> {
          const key = normalizeWorkspacePath(path);
          const file = tree.files[key];
          if (file === undefined) {
            if (tree.links[key] !== undefined || Object.keys(tree.files).some((p) => p.startsWith(`${key}/`)))
              throw new EngineError('NOT_A_REGULAR_FILE', `${key} is not a regular file in checkpoint ${checkpointId}`, { hint: 'name a regular file' });
            throw new EngineError('FILE_NOT_FOUND', `checkpoint ${checkpointId} of workspace ${workspaceId} holds no file ${key}`, {
              hint: 'diff the workspace for its paths',
            });
          }
          const bytes = Buffer.from(file, 'base64');
          return {
            size: bytes.length,
            chunks: (async function* () {
              for (let at = 0; at < bytes.length; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
            })(),
            async close() {},
          };
        },
        async close() {},
      };
    },
  };
}
