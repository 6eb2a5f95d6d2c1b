import { createHash } from 'node:crypto';
import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { EngineError, inputRef } from '../errors.js';
import { normalizeWorkspacePath } from '../paths.js';
import type { FileEntry, Provider } from '../provider.js';
import type { InputRecord, WorkspaceRecord } from '../store/sqlite-store.js';
import { attentionItem, type AttentionItem } from '../result/result-package.js';
import { readHostFile, scanHostSource } from './host-source.js';

export interface CopyInRequest {
  hostPath: string;
  destination: string;
  overwrite: boolean;
  jobId: string | null;
  /** Leave out nested `.git` entries (host-source.ts ScanOptions), naming each to `onLeftOut`. */
  withoutGitMetadata?: boolean;
  onLeftOut?: (paths: string[]) => void;
}

/** The note a copy that left `.git` entries out carries: where, and why. */
export function leftOutGitAttention(destination: string, paths: readonly string[]): AttentionItem {
  const shown = paths.slice(0, 3).map((p) => `${destination}/${p}`);
  return attentionItem(
    'left-out',
    `left out ${paths.length} .git folder(s) or git directories (a nested clone's metadata, whose config may hold a token): ${shown.join(', ')}${paths.length > 3 ? ', …' : ''}`,
  );
}

/**
 * The one way bytes enter a workspace (`put` and `run --input` both call
 * it): scan the source, check the storage budget BEFORE anything is copied,
 * refuse an existing destination unless overwriting, then write each file
 * through the provider with its digest. Records destination, size and
 * sha256 — never the bytes.
 */
export async function copyIn(ctx: EngineContext, ws: WorkspaceRecord, provider: Provider, request: CopyInRequest): Promise<InputRecord> {
  const destination = normalizeWorkspacePath(request.destination);
  const source = await scanHostSource(request.hostPath, { withoutGitMetadata: request.withoutGitMetadata === true });
  if (source.leftOut.length > 0) request.onLeftOut?.(source.leftOut);
  const view = await provider.inspect(ws.id);
  const replaced = request.overwrite ? await existingTree(provider, ws.id, destination) : null;
  // The whole source must fit beside what is there now, an overwrite's old files included. They are freed only as
  // each new file lands (and the extras at the end), so until then both take room; and what the old tree's listing
  // says it holds is the job's word: sparse files and hard links made it look big, passing a check that subtracted
  // it, and the copy then ran out of room part-way, leaving old and new files mixed (red team, session 11).
  const used = view.storageBytes ?? 0;
  const budget = ws.policy.budget.storageBytes;
  if (used + source.totalBytes > budget) {
    throw new EngineError(
      'POLICY_DENIED',
      `copying ${source.totalBytes} bytes into workspace ${ws.id} would exceed its storage_bytes budget (${used} of ${budget} bytes used${
        replaced !== null && replaced.kind !== 'missing' ? `, ${destination} included: an overwrite needs room for the new copy beside the old` : ''
      }); nothing was copied`,
      {
        hint:
          replaced !== null && replaced.kind !== 'missing'
            ? `remove the old ${destination} first (a job: rm -r), then put it; or create the workspace with a larger ${inputRef('budget.storageBytes')} budget`
            : `create the workspace with a larger ${inputRef('budget.storageBytes')} budget, or copy less`,
        // Spelt as create's input (the budget is set there): --storage-bytes on the CLI, budget.storageBytes elsewhere.
        inputsOf: 'create',
      },
    );
  }
  const targets = source.files.map((f) => ({ file: f, path: f.relative === '' ? destination : `${destination}/${f.relative}` }));
  if (!request.overwrite) {
    for (const existing of await existingPaths(provider, ws.id, [destination, ...targets.map((t) => t.path)])) {
      throw new EngineError('DESTINATION_EXISTS', `${existing} already exists in workspace ${ws.id}; nothing was copied`, {
        hint: "put it again, replacing it (a run's inputs never overwrite)",
        action: nextAction('put', { workspaceId: ws.id, hostPath: request.hostPath, destination: request.destination, overwrite: true }),
      });
    }
  }
  if (replaced !== null)
    await clearConflicts(
      provider,
      ws.id,
      destination,
      replaced,
      targets.map((t) => t.path),
      source.kind,
    );
  const manifest: string[] = [];
  for (const { file, path } of targets) {
    const bytes = await readHostFile(source, file);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await provider.write(ws.id, path, bytes, { expectedSha256: sha256, overwrite: request.overwrite });
    manifest.push(`${sha256}  ${bytes.length}  ${file.relative}`);
  }
  // Last, so a failed copy never leaves less than there was: what the source no longer has goes (#12 item 14).
  if (replaced !== null)
    await removeExtras(
      provider,
      ws.id,
      replaced,
      targets.map((t) => t.path),
    );
  const record: InputRecord = {
    workspaceId: ws.id,
    jobId: request.jobId,
    destination,
    kind: source.kind,
    sizeBytes: source.totalBytes,
    sha256:
      source.kind === 'file'
        ? manifest[0]!.split('  ')[0]!
        : createHash('sha256')
            .update(`${manifest.join('\n')}\n`)
            .digest('hex'),
    fileCount: source.files.length,
    createdAt: ctx.clock.now(),
  };
  ctx.store().recordInput(record);
  return record;
}

/**
 * Which of `paths` already exist in the workspace. Each check touches only
 * that path (a listing bounded to zero entries): listing a whole parent
 * walked every tree beside the destination, and a job's 1,500-deep tree
 * there failed the copy with ENAMETOOLONG (#10 item 8).
 */
async function existingPaths(provider: Provider, workspaceId: string, paths: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of new Set(paths)) {
    try {
      await provider.list(workspaceId, path, 0);
      found.push(path); // a directory
    } catch (error) {
      const code = (error as EngineError).code;
      if (code === 'NOT_A_REGULAR_FILE')
        found.push(path); // a file (or another non-directory)
      else if (code !== 'FILE_NOT_FOUND' && code !== 'BAD_PATH') throw error; // BAD_PATH: the write refuses it by name
    }
  }
  return found;
}

/** What sits at an overwrite's destination now: nothing, a non-directory, or a tree (its entries, or null when too many to list). */
interface ExistingTree {
  kind: 'missing' | 'other' | 'directory';
  entries: FileEntry[] | null;
}

/** Entries an overwrite lists to replace a tree precisely; past it the old tree is removed whole before the copy. */
const REPLACE_LIST_LIMIT = 100_000;

async function existingTree(provider: Provider, workspaceId: string, destination: string): Promise<ExistingTree> {
  try {
    const { entries, truncated } = await provider.list(workspaceId, destination, REPLACE_LIST_LIMIT);
    return { kind: 'directory', entries: truncated ? null : entries };
  } catch (error) {
    const code = (error as EngineError).code;
    if (code === 'FILE_NOT_FOUND' || code === 'BAD_PATH') return { kind: 'missing', entries: [] };
    if (code === 'NOT_A_REGULAR_FILE') return { kind: 'other', entries: [] }; // a file: the write replaces it
    throw error;
  }
}

/**
 * Before the copy: whatever would stop a target from being written goes —
 * a tree where a file lands, a file where a tree lands, and inside the tree
 * a directory where the source has a file (or a file where it has a folder).
 */
async function clearConflicts(
  provider: Provider,
  workspaceId: string,
  destination: string,
  existing: ExistingTree,
  targets: string[],
  kind: 'file' | 'directory',
): Promise<void> {
  if (existing.kind === 'missing') return;
  if ((kind === 'file') !== (existing.kind === 'other') || existing.entries === null) {
    await provider.removePath(workspaceId, destination);
    existing.entries = [];
    return;
  }
  const files = new Set(targets);
  const folders = new Set(targets.flatMap((t) => ancestorsWithin(t, destination)));
  for (const entry of existing.entries) {
    const conflict = entry.type === 'directory' ? files.has(entry.path) : folders.has(entry.path);
    if (conflict) await provider.removePath(workspaceId, entry.path);
  }
}

/** After the copy: every entry of the old tree the source does not have (a removed folder takes its contents with it). */
async function removeExtras(provider: Provider, workspaceId: string, existing: ExistingTree, targets: string[]): Promise<void> {
  const kept = new Set([...targets, ...targets.flatMap((t) => ancestorsWithin(t, ''))]);
  const removed: string[] = [];
  for (const entry of existing.entries ?? []) {
    if (kept.has(entry.path) || removed.some((dir) => entry.path.startsWith(`${dir}/`))) continue;
    await provider.removePath(workspaceId, entry.path);
    removed.push(entry.path);
  }
}

/** `a/b/c` under `a` → [`a/b`]: the folders a target needs below `root` ('' for all of them). */
function ancestorsWithin(path: string, root: string): string[] {
  const parts = path.split('/');
  const out: string[] = [];
  for (let i = 1; i < parts.length; i++) {
    const dir = parts.slice(0, i).join('/');
    if (root === '' || dir.startsWith(`${root}/`)) out.push(dir);
  }
  return out;
}
