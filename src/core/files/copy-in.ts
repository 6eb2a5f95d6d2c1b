import { createHash } from 'node:crypto';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { normalizeWorkspacePath } from '../paths.js';
import type { Provider } from '../provider.js';
import type { InputRecord, WorkspaceRecord } from '../store/sqlite-store.js';
import { readHostFile, scanHostSource } from './host-source.js';

export interface CopyInRequest {
  hostPath: string;
  destination: string;
  overwrite: boolean;
  jobId: string | null;
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
  const source = await scanHostSource(request.hostPath);
  const view = await provider.inspect(ws.id);
  const used = view.storageBytes ?? 0;
  const budget = ws.policy.budget.storageBytes;
  if (used + source.totalBytes > budget) {
    throw new EngineError('POLICY_DENIED', `copying ${source.totalBytes} bytes into workspace ${ws.id} would exceed its storage_bytes budget (${used} of ${budget} bytes used); nothing was copied`, {
      hint: 'create the workspace with a larger --storage-bytes, or copy less',
    });
  }
  const targets = source.files.map((f) => ({ file: f, path: f.relative === '' ? destination : `${destination}/${f.relative}` }));
  if (!request.overwrite) {
    for (const existing of await existingPaths(provider, ws.id, [destination, ...targets.map((t) => t.path)])) {
      throw new EngineError('DESTINATION_EXISTS', `${existing} already exists in workspace ${ws.id}; nothing was copied`, { hint: 'pass --overwrite to replace it (put only; run --input never overwrites)' });
    }
  }
  const manifest: string[] = [];
  for (const { file, path } of targets) {
    const bytes = await readHostFile(source, file);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await provider.write(ws.id, path, bytes, { expectedSha256: sha256, overwrite: request.overwrite });
    manifest.push(`${sha256}  ${bytes.length}  ${file.relative}`);
  }
  const record: InputRecord = {
    workspaceId: ws.id,
    jobId: request.jobId,
    destination,
    kind: source.kind,
    sizeBytes: source.totalBytes,
    sha256: source.kind === 'file' ? manifest[0]!.split('  ')[0]! : createHash('sha256').update(`${manifest.join('\n')}\n`).digest('hex'),
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
      if (code === 'NOT_A_REGULAR_FILE') found.push(path); // a file (or another non-directory)
      else if (code !== 'FILE_NOT_FOUND' && code !== 'BAD_PATH') throw error; // BAD_PATH: the write refuses it by name
    }
  }
  return found;
}
