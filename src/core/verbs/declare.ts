import type { EngineContext } from '../context.js';
import { nextAction } from '../next-action.js';
import { workspaceFileState } from '../files/workspace-file-state.js';
import { EngineError } from '../errors.js';
import { mediaTypeOf } from '../files/media-type.js';
import { normalizeWorkspacePath } from '../paths.js';
import { reconcile } from '../reconcile.js';
import type { ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { SqliteStore, WorkspaceRecord } from '../store/sqlite-store.js';
import { artifactEntries } from '../result/artifact-view.js';
import { requireLiveWorkspace } from './workspace-guards.js';
import { displayName, quotedName } from '../result/visible-text.js';

export interface DeclareInput {
  workspaceId: string;
  /** Workspace-relative path of the file the job produces. */
  name: string;
  /** Why it matters; mandatory unless `remove`. */
  purpose?: string;
  /**
   * Withdraw the declaration instead (a typo, or a file the job never made),
   * so it no longer blocks destroy. An exported artifact keeps its record.
   */
  remove?: boolean;
}

export interface Declaration {
  name: string;
  purpose: string;
}

/** Checks a declaration: the name is a workspace path, the purpose is not empty. */
export function checkDeclaration(declaration: { name: string; purpose?: string | undefined }): Declaration {
  const name = normalizeWorkspacePath(declaration.name);
  const purpose = typeof declaration.purpose === 'string' ? declaration.purpose.trim() : '';
  if (purpose === '') {
    throw new EngineError('BAD_ARGUMENT', `artifact ${quotedName(name)} needs a purpose`, {
      hint: 'give each declared artifact a purpose, e.g. report.json="pi to 10 digits"',
    });
  }
  return { name, purpose };
}

export function recordDeclarations(ctx: EngineContext, store: SqliteStore, workspaceId: string, declarations: Declaration[], jobId: string | null): void {
  for (const d of declarations)
    store.declareArtifact({ workspaceId, name: d.name, purpose: d.purpose, mediaType: mediaTypeOf(d.name), declaredByJob: jobId, declaredAt: ctx.clock.now() });
}

/** Declares an artifact after the fact (e.g. a file found with ls-files), so it can be exported. */
export async function declareArtifact(ctx: EngineContext, input: DeclareInput): Promise<ResultPackage> {
  const store = ctx.store();
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  if (input.remove === true) return withdrawDeclaration(ctx, ws, input);
  const declaration = checkDeclaration(input);
  recordDeclarations(ctx, store, ws.id, [declaration], null);
  // Declaring ahead of a job is allowed, but a name that is not there yet is often a typo: say so now, not at export.
  const state = await workspaceFileState(await ctx.provider(ws.provider), ws.id, declaration.name).catch(() => 'unknown' as const);
  const warnings =
    state === 'missing'
      ? [
          `there is no file ${quotedName(declaration.name)} in the workspace yet: export will refuse until a job writes it (a typo is withdrawn by declare with remove)`,
        ]
      : state === 'directory'
        ? [`${quotedName(declaration.name)} is a directory: export publishes one file; pack it into one (tar) and declare that`]
        : [];
  return declareResult(
    ctx,
    ws,
    `artifact ${quotedName(declaration.name)} is declared in workspace ${ws.id}`,
    [`purpose: ${declaration.purpose}`, 'only declared artifacts can leave a workspace, by export'],
    warnings,
  );
}

/** The result of either form of declare: what changed, then the workspace's artifacts as they now stand. */
async function declareResult(ctx: EngineContext, ws: WorkspaceRecord, summary: string, findings: string[], warnings: string[] = []): Promise<ResultPackage> {
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  const now = ctx.clock.now();
  return buildResult({
    outcome_summary: summary,
    status: 'success',
    key_findings: findings,
    artifacts: artifactEntries(ctx.store(), ws.id),
    warnings,
    provenance: provenanceFor(ctx, 'declare', { workspace: ws, startedAt: now, finishedAt: now }),
    attention,
  });
}

/** `declare --remove`: withdraws a declaration that is not exported; the result lists what stays declared. */
async function withdrawDeclaration(ctx: EngineContext, ws: WorkspaceRecord, input: DeclareInput): Promise<ResultPackage> {
  const store = ctx.store();
  const name = normalizeWorkspacePath(input.name);
  if (input.purpose !== undefined && input.purpose !== '') {
    throw new EngineError('BAD_ARGUMENT', `remove takes the artifact's NAME alone, not NAME=PURPOSE`, {
      hint: 'withdraw it by name alone',
      action: nextAction('declare', { workspaceId: ws.id, name, remove: true }),
    });
  }
  const artifacts = store.listArtifacts(ws.id);
  const found = artifacts.find((a) => a.name === name);
  if (!found) {
    const declared = artifacts.map((a) => quotedName(a.name)).join(', ');
    throw new EngineError('BAD_ARGUMENT', `artifact ${quotedName(name)} is not declared in workspace ${ws.id}; nothing was removed`, {
      hint: declared === '' ? 'the workspace has no declared artifacts' : `declared: ${declared}`,
    });
  }
  if (found.exportedTo !== null) {
    throw new EngineError(
      'BAD_ARGUMENT',
      `artifact ${quotedName(name)} was exported to ${displayName(found.exportedTo)}; its record stays with the workspace`,
      {
        hint: 'an exported artifact no longer blocks destroy: nothing needs removing',
      },
    );
  }
  store.removeArtifact(ws.id, name);
  return declareResult(ctx, ws, `artifact ${quotedName(name)} is no longer declared in workspace ${ws.id}`, [
    `the declaration (${found.purpose}) was withdrawn; the workspace's files were not touched`,
  ]);
}
