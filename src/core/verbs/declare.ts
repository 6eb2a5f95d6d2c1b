import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { mediaTypeOf } from '../files/media-type.js';
import { normalizeWorkspacePath } from '../paths.js';
import { reconcile } from '../reconcile.js';
import { makeResultPackage, emptyUsage, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import type { SqliteStore } from '../store/sqlite-store.js';
import { artifactEntries } from './artifact-view.js';
import { requireLiveWorkspace } from './workspace-guards.js';
import { quotedName } from '../result/visible-text.js';

export interface DeclareInput {
  workspaceId: string;
  /** Workspace-relative path of the file the job produces. */
  name: string;
  /** Why it matters; mandatory. */
  purpose: string;
}

export interface Declaration {
  name: string;
  purpose: string;
}

/** Checks a declaration: the name is a workspace path, the purpose is not empty. */
export function checkDeclaration(declaration: Declaration): Declaration {
  const name = normalizeWorkspacePath(declaration.name);
  const purpose = typeof declaration.purpose === 'string' ? declaration.purpose.trim() : '';
  if (purpose === '') {
    throw new EngineError('BAD_ARGUMENT', `artifact ${quotedName(name)} needs a purpose`, { hint: 'declare it as NAME=PURPOSE, e.g. --declare report.json="pi to 10 digits"' });
  }
  return { name, purpose };
}

export function recordDeclarations(ctx: EngineContext, store: SqliteStore, workspaceId: string, declarations: Declaration[], jobId: string | null): void {
  for (const d of declarations) store.declareArtifact({ workspaceId, name: d.name, purpose: d.purpose, mediaType: mediaTypeOf(d.name), declaredByJob: jobId, declaredAt: ctx.clock.now() });
}

/** Declares an artifact after the fact (e.g. a file found with ls-files), so it can be exported. */
export async function declareArtifact(ctx: EngineContext, input: DeclareInput): Promise<ResultPackage> {
  const store = ctx.store();
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  const declaration = checkDeclaration(input);
  recordDeclarations(ctx, store, ws.id, [declaration], null);
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  const now = ctx.clock.now();
  return makeResultPackage({
    outcome_summary: `artifact ${quotedName(declaration.name)} is declared in workspace ${ws.id}`,
    status: 'success',
    key_findings: [`purpose: ${declaration.purpose}`, 'only declared artifacts can leave a workspace, by export'],
    evidence: [],
    artifacts: artifactEntries(store, ws.id),
    warnings: [],
    resource_usage: emptyUsage(),
    provenance: provenanceFor(ctx, 'declare', { workspace: ws, startedAt: now, finishedAt: now }),
    attention,
  });
}
