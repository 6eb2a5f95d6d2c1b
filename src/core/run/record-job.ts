/**
 * The record a job gets before anything launches it, for a foreground run
 * and a detached one alike: in one IMMEDIATE transaction the workspace is
 * taken (a job slot under its policy's concurrency), the job row is written
 * with its owner (the foreground caller, or a detached run's supervisor), its
 * env NAMES and declarations are recorded, and the run intent is journalled.
 * Returns the intent's id, settled with the job's terminal record.
 */
import type { EngineContext } from '../context.js';
import type { Owner } from '../store/owner.js';
import type { WorkspaceRecord } from '../store/sqlite-store.js';
import { recordDeclarations, type Declaration } from '../verbs/declare.js';

export interface JobToRecord {
  workspace: WorkspaceRecord;
  jobId: string;
  argv: string[];
  cwd: string | undefined;
  /** Only the names are recorded. */
  env: Record<string, string>;
  declarations: Declaration[];
  owner: Owner;
}

export function recordJob(ctx: EngineContext, job: JobToRecord): number {
  const store = ctx.store();
  const { workspace: ws, jobId, owner } = job;
  const startedAt = ctx.clock.now();
  return store.atomically(() => {
    store.beginJob({ id: jobId, workspaceId: ws.id, argv: job.argv, ...(job.cwd === undefined ? {} : { cwd: job.cwd }), startedAt, owner });
    if (Object.keys(job.env).length) store.recordEnvNames(jobId, Object.keys(job.env).sort());
    recordDeclarations(ctx, store, ws.id, job.declarations, jobId);
    return store.openIntent({ workspaceId: ws.id, jobId, op: 'run', provider: ws.provider, owner, createdAt: startedAt, traceId: ctx.traceId });
  });
}
