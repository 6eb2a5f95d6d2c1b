import type { EngineContext } from '../context.js';
import { crashPoint } from '../crash-points.js';
import { copyIn, leftOutGitAttention } from '../files/copy-in.js';
import { normalizeWorkspacePath } from '../paths.js';
import { reconcile } from '../reconcile.js';
import type { ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import type { EngineError } from '../errors.js';
import { currentOwner } from '../store/owner.js';
import type { InputRecord } from '../store/sqlite-store.js';
import { artifactEntries } from '../result/artifact-view.js';
import { requireLiveWorkspace } from './workspace-guards.js';
import { displayName } from '../result/visible-text.js';

export interface PutInput {
  workspaceId: string;
  /** A host file or directory. */
  hostPath: string;
  /** Workspace-relative destination. */
  destination: string;
  overwrite?: boolean;
  /** Leave nested `.git` entries out (set by the MCP face, and by prepare for a manifest's inputs; files/host-source.ts). */
  withoutGitMetadata?: boolean;
}

export function describeInput(input: InputRecord): string {
  return input.kind === 'file'
    ? `${displayName(input.destination)}: ${input.sizeBytes} bytes, sha256:${input.sha256}`
    : `${displayName(input.destination)}/: ${input.fileCount} file(s), ${input.sizeBytes} bytes, manifest sha256:${input.sha256}`;
}

export function provenanceInputs(inputs: InputRecord[]): Array<{ destination: string; size_bytes: number; sha256: string }> {
  return inputs.map((i) => ({
    destination: i.kind === 'directory' ? `${i.destination}/` : i.destination,
    size_bytes: i.sizeBytes,
    sha256: `sha256:${i.sha256}`,
  }));
}

/** Copies a host file or directory into a workspace, recording destination, size and digest — never the bytes. */
export async function putFiles(ctx: EngineContext, input: PutInput): Promise<ResultPackage> {
  const store = ctx.store();
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  store.refuseIfRunning(ws.id);
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  const provider = await ctx.provider(ws.provider);
  const startedAt = ctx.clock.now();
  // The intent is the lease: taken atomically, so no job starts while the copy runs.
  const intent = store.leaseWorkspace({
    workspaceId: ws.id,
    op: 'put',
    provider: ws.provider,
    owner: currentOwner(),
    createdAt: startedAt,
    target: normalizeWorkspacePath(input.destination),
    traceId: ctx.traceId,
  });
  crashPoint('put', 'after-intent');
  let record: InputRecord;
  try {
    record = await copyIn(ctx, ws, provider, {
      hostPath: input.hostPath,
      destination: input.destination,
      overwrite: input.overwrite === true,
      jobId: null,
      withoutGitMetadata: input.withoutGitMetadata === true,
      onLeftOut: (paths) => attention.push(leftOutGitAttention(normalizeWorkspacePath(input.destination), paths)),
    });
    crashPoint('put', 'after-provider-call');
  } catch (error) {
    store.settleIntent(intent, `failed: ${(error as EngineError).code ?? 'error'}`, ctx.clock.now());
    throw error;
  }
  store.settleIntent(intent, 'done', ctx.clock.now());
  const view = await provider.inspect(ws.id).catch(() => null);
  const provenance = provenanceFor(ctx, 'put', { workspace: ws, startedAt, finishedAt: ctx.clock.now() });
  provenance.inputs = provenanceInputs([record]);
  return buildResult({
    outcome_summary: `${record.kind === 'file' ? 'a file' : `a directory of ${record.fileCount} file(s)`} entered workspace ${ws.id} at ${displayName(record.destination)}`,
    status: 'success',
    key_findings: [describeInput(record)],
    artifacts: artifactEntries(store, ws.id),
    resource_usage: { storage_bytes: view?.storageBytes ?? null },
    provenance,
    attention,
  });
}
