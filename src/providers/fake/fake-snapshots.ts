/**
 * The fake provider's snapshots (#14), in memory: a checkpoint is a copy of
 * the workspace's file map, kept beside it; restore puts the copy back; a
 * fork is a new workspace holding a copy. The same semantics the native
 * mechanism gives, so the engine's snapshot verbs and their laws are tested
 * on both.
 */
import { createHash } from 'node:crypto';
import { EngineError } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { normalizeWorkspacePath } from '../../core/paths.js';
import type { ReadStream, WorkspaceDescriptor } from '../../core/provider.js';
import type { SnapshotOps, TreeChange, TreeFacts } from '../../core/snapshots/snapshot-ops.js';
import { need, recount, type FakeStore, type FakeWorkspace } from './fake-state.js';

/** Fake files carry no mode: every file reads as a plain 0644 one. */
const FILE_MODE = 0o644;

const sha = (b64: string) => createHash('sha256').update(Buffer.from(b64, 'base64')).digest('hex');

/** The tree digest: equal file maps, equal digests. */
function factsOf(files: Record<string, string>): TreeFacts {
  const hash = createHash('sha256');
  let bytes = 0;
  const paths = Object.keys(files).sort();
  for (const path of paths) {
    bytes += Buffer.from(files[path]!, 'base64').length;
    hash.update(`${path}\0${sha(files[path]!)}\n`);
  }
  return { fileCount: paths.length, bytes, digest: `sha256:${hash.digest('hex')}` };
}

function checkpointOf(ws: FakeWorkspace, workspaceId: string, checkpointId: string): Record<string, string> {
  const files = ws.checkpoints?.[checkpointId];
  if (files === undefined)
    throw new EngineError('FILE_NOT_FOUND', `the fake provider holds no data for checkpoint ${checkpointId} of workspace ${workspaceId}`, {
      hint: 'inspect the workspace for its checkpoints',
      action: nextAction('inspect', { handle: workspaceId }),
    });
  return files;
}

export function fakeSnapshots(store: FakeStore, environmentDigest: string): SnapshotOps {
  return {
    async checkpoint(workspaceId, checkpointId) {
      return store.mutate((state) => {
        const ws = need(state, workspaceId);
        ws.checkpoints = { ...ws.checkpoints, [checkpointId]: { ...ws.files } };
        return factsOf(ws.files);
      });
    },
    async restore(workspaceId, checkpointId) {
      store.mutate((state) => {
        const ws = need(state, workspaceId);
        ws.files = { ...checkpointOf(ws, workspaceId, checkpointId) };
        recount(ws);
      });
    },
    async verify(workspaceId, checkpointId, digest) {
      const files = store.load().workspaces[workspaceId]?.checkpoints?.[checkpointId];
      return files !== undefined && factsOf(files).digest === digest;
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
        const files = checkpointOf(parent, parentId, fromCheckpointId);
        if (state.workspaces[spec.workspaceId])
          throw new EngineError('WORKSPACE_EXISTS', `the fake provider already has workspace ${spec.workspaceId}`, { hint: 'choose another workspace id' });
        const child: FakeWorkspace = {
          profile: spec.profile,
          files: { ...files },
          storageBytes: 0,
          storageBudget: spec.policy.budget.storageBytes,
          jobs: {},
          jobUser: { ...spec.jobUser },
          checkpoints: { [childBaseId]: { ...files } },
        };
        recount(child);
        state.workspaces[spec.workspaceId] = child;
        return { workspaceId: spec.workspaceId, state: 'ready', profile: spec.profile, environmentDigest, storageBytes: child.storageBytes };
      });
    },
    async changes(workspaceId, checkpointId, limit) {
      const ws = need(store.load(), workspaceId);
      const before = checkpointOf(ws, workspaceId, checkpointId);
      const all: TreeChange[] = [];
      for (const path of new Set([...Object.keys(before), ...Object.keys(ws.files)])) {
        const old = before[path];
        const now = ws.files[path];
        if (old === now) continue;
        if (now === undefined) {
          all.push({ path, kind: 'delete', type: 'file', size: 0, sha256: null, mode: null, previousSha256: sha(old!) });
          continue;
        }
        const size = Buffer.from(now, 'base64').length;
        all.push({
          path,
          kind: old === undefined ? 'create' : 'modify',
          type: 'file',
          size,
          sha256: sha(now),
          mode: FILE_MODE,
          previousSha256: old === undefined ? null : sha(old),
        });
      }
      all.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return { changes: all.slice(0, limit), truncated: all.length > limit };
    },
    async readAt(workspaceId, checkpointId, path, chunkBytes = 1024 * 1024): Promise<ReadStream> {
      const key = normalizeWorkspacePath(path);
      const files = checkpointOf(need(store.load(), workspaceId), workspaceId, checkpointId);
      const file = files[key];
      if (file === undefined) {
        if (Object.keys(files).some((p) => p.startsWith(`${key}/`)))
          throw new EngineError('NOT_A_REGULAR_FILE', `${key} is a directory in checkpoint ${checkpointId}, not a regular file`, { hint: 'name a file' });
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
  };
}
