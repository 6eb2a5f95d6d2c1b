/**
 * Host-side file calls on a fake workspace (read, write, remove, list): its
 * files are base64 strings keyed by the name text form, with directories
 * implied by the paths under them, as the provider contract speaks them.
 */
import { createHash } from 'node:crypto';
import { EngineError, inputRef } from '../../core/errors.js';
import { nextAction } from '../../core/next-action.js';
import { normalizeWorkspacePath } from '../../core/paths.js';
import type { LimitName } from '../../core/policy/policy.js';
import type { FileEntry, ReadStream, WriteOptions } from '../../core/provider.js';
import { need, recount, removeUnder, type FakeStore } from './fake-state.js';

export function readFakeFile(store: FakeStore, workspaceId: string, path: string, chunkBytes = 1024 * 1024): ReadStream {
  const key = normalizeWorkspacePath(path);
  const ws = need(store.load(), workspaceId);
  const file = ws.files[key];
  if (ws.links?.[key] !== undefined)
    throw new EngineError('NOT_A_REGULAR_FILE', `${key} is a symbolic link, not a regular file`, { hint: 'name a regular file; links are never followed' });
  if (file === undefined) {
    const isDir = Object.keys(ws.files).some((p) => p.startsWith(`${key}/`));
    if (isDir)
      throw new EngineError('NOT_A_REGULAR_FILE', `${key} is a directory, not a regular file`, {
        hint: 'name a file inside it; list them',
        action: nextAction('ls-files', { workspaceId, path: key }),
      });
    throw new EngineError('FILE_NOT_FOUND', `no file ${key} in workspace ${workspaceId}`, {
      hint: 'list its files',
      action: nextAction('ls-files', { workspaceId }),
    });
  }
  const bytes = Buffer.from(file, 'base64');
  let closed = false;
  return {
    size: bytes.length,
    chunks: (async function* () {
      for (let at = 0; at < bytes.length && !closed; at += chunkBytes) yield bytes.subarray(at, at + chunkBytes);
    })(),
    async close() {
      closed = true;
    },
  };
}

/** Lands the bytes only when their digest is the expected one and the storage budget (unless configured unenforced) holds them. */
export function writeFakeFile(
  store: FakeStore,
  cannot: ReadonlySet<LimitName>,
  workspaceId: string,
  path: string,
  data: Buffer,
  writeOptions: WriteOptions,
): void {
  const key = normalizeWorkspacePath(path);
  const digest = createHash('sha256').update(data).digest('hex');
  if (digest !== writeOptions.expectedSha256.toLowerCase()) {
    throw new EngineError(
      'DIGEST_MISMATCH',
      `the bytes for ${key} have sha256:${digest}, not the expected sha256:${writeOptions.expectedSha256.slice(0, 64)}; nothing was written`,
      { hint: 'the source changed while it was copied; copy it again' },
    );
  }
  store.mutate((state) => {
    const ws = need(state, workspaceId);
    if (ws.files[key] !== undefined && !writeOptions.overwrite) {
      throw new EngineError('DESTINATION_EXISTS', `${key} already exists in workspace ${workspaceId}`, {
        hint: 'write it again with overwrite to replace it',
      });
    }
    const after = ws.storageBytes - (ws.files[key] ? Buffer.from(ws.files[key], 'base64').length : 0) + data.length;
    if (!cannot.has('storage') && after > ws.storageBudget) {
      throw new EngineError(
        'POLICY_DENIED',
        `writing ${key} would take the workspace to ${after} bytes, past its storage_bytes budget of ${ws.storageBudget}`,
        { hint: `create the workspace with a larger ${inputRef('budget.storageBytes')} budget`, inputsOf: 'create' },
      );
    }
    if (ws.links?.[key] !== undefined && !writeOptions.overwrite)
      throw new EngineError('DESTINATION_EXISTS', `${key} already exists in workspace ${workspaceId}`, { hint: 'write it again with overwrite to replace it' });
    // Replacing a link replaces the link itself, never its target.
    if (ws.links) delete ws.links[key];
    ws.files[key] = data.toString('base64');
    if (writeOptions.mode !== undefined && (writeOptions.mode & 0o777) !== 0o644) ws.modes = { ...ws.modes, [key]: writeOptions.mode & 0o777 };
    else if (ws.modes) delete ws.modes[key];
    recount(ws);
  });
}

export function removeFakePath(store: FakeStore, workspaceId: string, path: string): void {
  const key = normalizeWorkspacePath(path);
  store.mutate((state) => {
    const ws = need(state, workspaceId);
    removeUnder(ws, key);
    recount(ws);
  });
}

/** Recursive, like native: every file under the path and every directory implied by one. */
export function listFakeFiles(store: FakeStore, workspaceId: string, path: string, limit: number): { entries: FileEntry[]; truncated: boolean } {
  const base = normalizeWorkspacePath(path, { allowRoot: true });
  const ws = need(store.load(), workspaceId);
  const prefix = base === '' ? '' : `${base}/`;
  if (base !== '' && ws.files[base] !== undefined)
    throw new EngineError('NOT_A_REGULAR_FILE', `${base} is a file, not a directory`, {
      hint: 'list its directory instead',
      action: nextAction('ls-files', base.includes('/') ? { workspaceId, path: base.slice(0, base.lastIndexOf('/')) } : { workspaceId }),
    });
  const seen = new Map<string, FileEntry>();
  for (const [p, b64] of Object.entries(ws.files)) {
    if (!p.startsWith(prefix)) continue;
    const parts = p.slice(prefix.length).split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = prefix + parts.slice(0, i).join('/');
      if (!seen.has(dir)) seen.set(dir, { path: dir, type: 'directory', size: 0 });
    }
    seen.set(p, { path: p, type: 'file', size: Buffer.from(b64, 'base64').length });
  }
  for (const [p, target] of Object.entries(ws.links ?? {})) {
    if (!p.startsWith(prefix)) continue;
    const parts = p.slice(prefix.length).split('/');
    for (let i = 1; i < parts.length; i++) {
      const dir = prefix + parts.slice(0, i).join('/');
      if (!seen.has(dir)) seen.set(dir, { path: dir, type: 'directory', size: 0 });
    }
    seen.set(p, { path: p, type: 'symlink', size: Buffer.byteLength(target) });
  }
  if (base !== '' && seen.size === 0)
    throw new EngineError('FILE_NOT_FOUND', `no directory ${base} in workspace ${workspaceId}`, {
      hint: 'list the whole workspace',
      action: nextAction('ls-files', { workspaceId }),
    });
  const entries = [...seen.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { entries: entries.slice(0, limit), truncated: entries.length > limit };
}
