import { attentionItem, type ArtifactEntry, type AttentionItem } from './result-package.js';
import { nextAction } from '../next-action.js';
import type { ArtifactRecord, SqliteStore } from '../store/sqlite-store.js';
import { quotedName } from './visible-text.js';

export function artifactEntries(store: SqliteStore, workspaceId: string): ArtifactEntry[] {
  return store.listArtifacts(workspaceId).map(toEntry);
}

export function toEntry(a: ArtifactRecord): ArtifactEntry {
  return {
    name: a.name,
    purpose: a.purpose,
    media_type: a.mediaType,
    digest: a.exportedSha256 === null ? null : `sha256:${a.exportedSha256}`,
    size_bytes: a.exportedSize,
    reference: a.exportedTo,
  };
}

/** One attention item per declared artifact that has not left the workspace yet. */
/** `artifacts`: the workspace's artifacts as the caller has just read them in its transaction (not read again). */
export function unexportedAttention(store: SqliteStore, workspaceId: string, artifacts?: readonly ArtifactRecord[]): AttentionItem[] {
  return (artifacts ?? store.listArtifacts(workspaceId))
    .filter((a) => a.exportedTo === null)
    .map((a) =>
      attentionItem(
        'unexported-artifact',
        `artifact ${quotedName(a.name)} is declared but not exported (${a.purpose}); a destroy refuses until it is exported or discarded with force; export it`,
        { workspace_id: workspaceId, name: a.name, action: nextAction('export', { workspaceId, name: a.name }, ['to']) },
      ),
    );
}
