import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { normalizeWorkspacePath } from '../paths.js';
import { reconcile } from '../reconcile.js';
import type { ResultPackage, StructuredFinding } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { artifactEntries } from '../result/artifact-view.js';
import { requireLiveWorkspace } from './workspace-guards.js';
import { displayName } from '../result/visible-text.js';
import { hasEscapes } from '../name-text.js';

export interface LsFilesInput {
  workspaceId: string;
  /** Workspace-relative directory; default the root. */
  path?: string;
  /** At most this many entries (default 200, at most 10,000). */
  limit?: number;
}

/** A bounded listing (names, types, sizes) so an agent can find files it never declared. */
export async function listFiles(ctx: EngineContext, input: LsFilesInput): Promise<ResultPackage> {
  const store = ctx.store();
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  const path = input.path === undefined ? '' : normalizeWorkspacePath(input.path, { allowRoot: true });
  const limit = input.limit ?? 200;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('limit')} takes a whole number from 1 to 10000`, {
      hint: `for example ${inputRef('limit', 500)}; list a subdirectory to see deeper`,
      inputsOf: 'ls-files',
    });
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  const provider = await ctx.provider(ws.provider);
  const listing = await provider.list(ws.id, path, limit);
  // A job chooses these names. Each is in its text form (core/name-text.ts): controls, bidi and
  // invisible characters, backslashes and bytes that are not UTF-8 are escapes, so no entry can
  // forge, hide or read as another (#10 item 11; round 2: `r\xff.txt` vs a real `r\ufffd.txt`).
  // One object per entry (#13): `path` is that text form, the very string export, declare and
  // ls-files accept; `name_encoding: 'escaped'` marks a path that holds an escape.
  const findings: StructuredFinding[] = listing.entries.map((e) => {
    const name = displayName(e.path);
    const text = e.type === 'file' ? `${name} (${e.size} bytes)` : e.type === 'directory' ? `${name}/` : `${name} (${e.type}: not exportable)`;
    return {
      kind: 'file',
      text,
      path: name,
      ...(hasEscapes(name) ? { name_encoding: 'escaped' } : {}),
      type: e.type,
      ...(e.type === 'file' ? { size_bytes: e.size } : {}),
    };
  });
  const now = ctx.clock.now();
  return buildResult({
    outcome_summary: `${listing.entries.length}${listing.truncated ? '+' : ''} entr${listing.entries.length === 1 ? 'y' : 'ies'} under ${path === '' ? 'the root' : displayName(path)} of workspace ${ws.id}`,
    status: 'success',
    key_findings: findings,
    artifacts: artifactEntries(store, ws.id),
    warnings: listing.truncated ? [`the listing stopped at ${limit} entries; narrow it with a path or list more entries at once`] : [],
    provenance: provenanceFor(ctx, 'ls-files', { workspace: ws, startedAt: now, finishedAt: ctx.clock.now() }),
    attention,
  });
}
