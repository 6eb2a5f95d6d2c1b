import { lstatSync } from 'node:fs';
import { nextAction } from '../next-action.js';
import { basename, join, resolve } from 'node:path';
import type { EngineContext } from '../context.js';
import { EngineError, isEngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import type { Provider } from '../provider.js';
import { workspaceFileState } from '../files/workspace-file-state.js';
import { crashPoint } from '../crash-points.js';
import { exportFile } from '../files/export-artifact.js';
import { reconcile } from '../reconcile.js';
import type { ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { currentOwner } from '../store/owner.js';
import { normalizeWorkspacePath } from '../paths.js';
import { artifactEntries } from '../result/artifact-view.js';
import { requireLiveWorkspace } from './workspace-guards.js';
import { reissueOnExport } from '../receipts/job-receipt.js';
import { displayHostPath, displayName, quotedName } from '../result/visible-text.js';

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
  store.refuseIfRunning(ws.id);
  const name = normalizeWorkspacePath(input.name);
  // Names are stored in their canonical text form; a row declared before names had one holds the
  // raw name, which is matched by the text form of its bytes (displayName) so it stays exportable.
  const artifacts = store.listArtifacts(ws.id);
  const declared = artifacts.find((a) => a.name === name) ?? artifacts.find((a) => displayName(a.name) === name);
  if (!declared) {
    throw new EngineError(
      'BAD_ARGUMENT',
      `artifact ${quotedName(name)} was never declared in workspace ${ws.id}; only declared artifacts can leave a workspace`,
      {
        hint: 'declare it first, with its purpose',
        action: nextAction('declare', { workspaceId: ws.id, name }, ['purpose']),
      },
    );
  }
  if (typeof input.to !== 'string' || input.to === '' || input.to.includes('\0')) {
    throw new EngineError('BAD_ARGUMENT', `export needs a host path to write to (${inputRef('to')})`, {
      inputsOf: 'export',
      hint: 'name the destination',
      action: nextAction('export', { workspaceId: ws.id, name, to: `./${basename(name)}` }),
    });
  }
  const destination = destinationOf(input.to, name);
  if (input.maxBytes !== undefined && (!Number.isSafeInteger(input.maxBytes) || input.maxBytes < 1)) {
    throw new EngineError('BAD_ARGUMENT', `${inputRef('maxBytes')} takes a whole number of bytes, at least 1`, {
      hint: `for example ${inputRef('maxBytes', 1073741824)} (1G)`,
      inputsOf: 'export',
    });
  }
  const cap =
    input.maxBytes === undefined
      ? { maxBytes: ws.policy.budget.storageBytes, source: "the workspace's storage_bytes budget; export's max bytes overrides it" }
      : { maxBytes: input.maxBytes, source: "export's max bytes", given: true };
  const provider = await ctx.provider(ws.provider);
  const startedAt = ctx.clock.now();
  // The intent is the lease (no job starts while the copy runs) and records
  // the destination, so doctor --repair can find a crashed export's temporary file.
  const intent = store.leaseWorkspace({
    workspaceId: ws.id,
    op: 'export',
    provider: ws.provider,
    owner: currentOwner(),
    createdAt: startedAt,
    target: JSON.stringify({ name, to: destination }),
    traceId: ctx.traceId,
  });
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
    throw await explainUnreadable(error, provider, ws.id, name);
  }
  const reissued = store.atomically(() => {
    store.settleIntent(intent, 'exported', ctx.clock.now());
    store.recordExport(ws.id, declared.name, { to: result.destination, sha256: result.sha256, size: result.size, at: ctx.clock.now() });
    // The owning job's receipt gains the artifact as its next version (#16), in the same commit as the export's record.
    return reissueOnExport(ctx, store, ws, declared.declaredByJob, {
      name: declared.name,
      size_bytes: result.size,
      sha256: result.sha256,
      exported_to: result.destination,
    });
  });
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  return buildResult({
    outcome_summary: `artifact ${quotedName(name)} left workspace ${ws.id} and is durable at ${displayHostPath(result.destination)}`,
    status: 'success',
    key_findings: [
      `${result.size} bytes verified as sha256:${result.sha256}`,
      'the artifact now outlives its workspace',
      reissued
        ? `job ${reissued.jobId}'s receipt is now version ${reissued.version}, binding this artifact: ${reissued.sha256}${reissued.jobId === declared.declaredByJob ? '' : ` (the job that ran last here; ${declared.declaredByJob === null ? 'the artifact was declared after the fact' : `declared by job ${declared.declaredByJob}`})`}`
        : 'no job receipt binds this export: no job has finished here, or a restore or settle changed the files after the last one',
    ],
    artifacts: artifactEntries(store, ws.id),
    provenance: provenanceFor(ctx, 'export', { workspace: ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}

/**
 * `--to` names the file, or a directory to publish into under the
 * artifact's own file name: an existing directory, or any path written with
 * a trailing slash (which must then exist). It used to be taken as the file
 * itself, refused as existing, and `--overwrite` then failed too (#12 item 13).
 */
function destinationOf(to: string, name: string): string {
  const resolved = resolve(to);
  let isDirectory = false;
  try {
    isDirectory = lstatSync(resolved).isDirectory(); // lstat: a link is never written through (export-artifact.ts refuses it)
  } catch {
    isDirectory = false;
  }
  if (isDirectory) return join(resolved, basename(name));
  if (to.endsWith('/'))
    throw new EngineError('BAD_PATH', `the destination ${to} names a directory that does not exist on the host; nothing was written`, {
      hint: `create it first (mkdir -p ${to}), or give the file's path without a trailing /`,
    });
  return resolved;
}

/** The reader's refusal of a declared artifact said in the artifact's terms: missing, or a directory. */
async function explainUnreadable(error: unknown, provider: Provider, workspaceId: string, name: string): Promise<unknown> {
  if (!isEngineError(error) || (error.code !== 'FILE_NOT_FOUND' && error.code !== 'NOT_A_REGULAR_FILE')) return error;
  const state = await workspaceFileState(provider, workspaceId, name);
  if (state === 'missing') {
    return new EngineError(
      'FILE_NOT_FOUND',
      `declared artifact ${quotedName(name)} does not exist in workspace ${workspaceId}: there is no file /workspace/${name}; nothing was written`,
      {
        hint: 'a declared name that was a typo is withdrawn by declare with remove; find what the job wrote',
        action: nextAction('ls-files', { workspaceId }),
      },
    );
  }
  if (state === 'directory') {
    return new EngineError(
      'NOT_A_REGULAR_FILE',
      `declared artifact ${quotedName(name)} is a directory in workspace ${workspaceId}; export publishes one file; nothing was written`,
      {
        hint: `pack it first with a job (tar -czf ${name}.tar.gz ${name}), declare ${name}.tar.gz and export that`,
      },
    );
  }
  return error;
}
