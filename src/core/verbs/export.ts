import { resolve } from 'node:path';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { crashPoint } from '../crash-points.js';
import { exportFile } from '../files/export-artifact.js';
import { reconcile } from '../reconcile.js';
import { makeResultPackage, emptyUsage, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { currentOwner } from '../store/owner.js';
import { normalizeWorkspacePath } from '../paths.js';
import { artifactEntries } from './artifact-view.js';
import { requireLiveWorkspace } from './workspace-guards.js';
import { displayHostPath, displayName, quotedName } from '../result/visible-text.js';
import { shellQuote } from '../context.js';

export interface ExportInput {
  workspaceId: string;
  /** The declared artifact's name (its workspace path). */
  name: string;
  /** Host destination path. */
  to: string;
  expectSha256?: string;
  overwrite?: boolean;
  /** Refuse an artifact whose apparent size exceeds this many bytes; default the workspace's storage budget. */
  maxBytes?: number;
  onProgress?: (done: number, total: number) => void;
}

/** Publishes a declared artifact to a durable host path, digest-verified, by atomic rename. */
export async function exportArtifact(ctx: EngineContext, input: ExportInput): Promise<ResultPackage> {
  const store = ctx.store();
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  if (ws.state === 'running') throw store.busyError(ws.id, ctx.invoke);
  const name = normalizeWorkspacePath(input.name);
  // Names are stored in their canonical text form; a row declared before names had one holds the
  // raw name, which is matched by the text form of its bytes (displayName) so it stays exportable.
  const artifacts = store.listArtifacts(ws.id);
  const declared = artifacts.find((a) => a.name === name) ?? artifacts.find((a) => displayName(a.name) === name);
  if (!declared) {
    throw new EngineError('BAD_ARGUMENT', `artifact ${quotedName(name)} was never declared in workspace ${ws.id}; only declared artifacts can leave a workspace`, {
      hint: `declare it first: headspace declare ${ws.id} ${shellQuote(`${name}=PURPOSE`)}`,
    });
  }
  if (typeof input.to !== 'string' || input.to === '' || input.to.includes('\0')) throw new EngineError('BAD_ARGUMENT', 'export needs --to <host path>');
  const destination = resolve(input.to);
  if (input.maxBytes !== undefined && (!Number.isSafeInteger(input.maxBytes) || input.maxBytes < 1)) {
    throw new EngineError('BAD_ARGUMENT', '--max-bytes takes a whole number of bytes, at least 1', { hint: 'for example --max-bytes 1G' });
  }
  const cap = input.maxBytes === undefined ? { maxBytes: ws.policy.budget.storageBytes, source: "the workspace's storage_bytes budget; --max-bytes overrides it" } : { maxBytes: input.maxBytes, source: '--max-bytes' };
  const provider = await ctx.provider(ws.provider);
  const startedAt = ctx.clock.now();
  // The intent is the lease (no job starts while the copy runs) and records
  // the destination, so doctor --repair can find a crashed export's temporary file.
  const intent = store.leaseWorkspace({ workspaceId: ws.id, op: 'export', provider: ws.provider, owner: currentOwner(), createdAt: startedAt, target: JSON.stringify({ name, to: destination }), traceId: ctx.traceId });
  crashPoint('export', 'after-intent');
  let result;
  try {
    result = await exportFile(provider, ws.id, name, destination, {
      cap,
      overwrite: input.overwrite === true,
      ...(input.expectSha256 === undefined ? {} : { expectSha256: input.expectSha256 }),
      ...(input.onProgress ? { onProgress: input.onProgress } : {}),
      beforePublish: () => crashPoint('export', 'before-publish'),
    });
    crashPoint('export', 'after-provider-call');
  } catch (error) {
    store.settleIntent(intent, `failed: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    throw error;
  }
  store.atomically(() => {
    store.settleIntent(intent, 'exported', ctx.clock.now());
    store.recordExport(ws.id, declared.name, { to: result.destination, sha256: result.sha256, size: result.size, at: ctx.clock.now() });
  });
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  return makeResultPackage({
    outcome_summary: `artifact ${quotedName(name)} left workspace ${ws.id} and is durable at ${displayHostPath(result.destination)}`,
    status: 'success',
    key_findings: [`${result.size} bytes verified as sha256:${result.sha256}`, 'the artifact now outlives its workspace'],
    evidence: [],
    artifacts: artifactEntries(store, ws.id),
    warnings: [],
    resource_usage: { ...emptyUsage(), output_bytes: null },
    provenance: provenanceFor(ctx, 'export', { workspace: ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}
