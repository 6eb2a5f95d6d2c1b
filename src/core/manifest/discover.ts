/**
 * Which workspace the caller's directory belongs to (#17), for `status`
 * without an id: the nearest directory, from the one given up through its
 * parents, that holds a headspace.yml or a manifest a workspace was
 * prepared from (its receipt). Its live workspaces are the candidates: one
 * is the answer, several are an ambiguity the caller resolves by naming
 * one. The directory is an input (the CLI passes its working directory):
 * core never reads the process's. Reads the manifest's `id` with the YAML
 * parser alone (no schema check, so no zod on status's path).
 */
import { lstat, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { MANIFEST_FILE_NAME } from './manifest-name.js';
import { listReceipts } from './receipt.js';

export type Discovery =
  | { kind: 'none' }
  | { kind: 'found'; workspaceId: string; dir: string; manifest: string }
  | { kind: 'ambiguous'; dir: string; candidates: Array<{ workspaceId: string; manifest: string }> }
  | { kind: 'unprepared'; dir: string; manifest: string; workspaceId: string | null };

export async function discoverWorkspace(home: string, from: string, isLive: (workspaceId: string) => boolean): Promise<Discovery> {
  const receipts = listReceipts(home).filter((r) => isLive(r.workspace_id));
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const manifest = join(dir, MANIFEST_FILE_NAME);
    const hasManifest = (await lstat(manifest).catch(() => null))?.isFile() === true;
    const here = receipts.filter((r) => r.manifest_dir === dir);
    if (hasManifest || here.length > 0) {
      const candidates = new Map(here.map((r) => [r.workspace_id, r.manifest_file]));
      const named = hasManifest ? await manifestId(manifest) : null;
      if (named !== null && isLive(named) && !candidates.has(named)) candidates.set(named, manifest);
      const list = [...candidates].map(([workspaceId, file]) => ({ workspaceId, manifest: file })).sort((a, b) => a.workspaceId.localeCompare(b.workspaceId));
      if (list.length === 1) return { kind: 'found', workspaceId: list[0]!.workspaceId, dir, manifest: list[0]!.manifest };
      if (list.length > 1) return { kind: 'ambiguous', dir, candidates: list };
      if (hasManifest) return { kind: 'unprepared', dir, manifest, workspaceId: named };
    }
    if (dirname(dir) === dir) return { kind: 'none' };
  }
}

async function manifestId(file: string): Promise<string | null> {
  try {
    const { parse } = await import('yaml');
    const data = parse(await readFile(file, 'utf8'), { maxAliasCount: 50 }) as unknown;
    const id = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).id : undefined;
    return typeof id === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(id) ? id : null;
  } catch {
    return null;
  }
}
