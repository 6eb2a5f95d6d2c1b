import type { EngineContext } from '../context.js';
import { reconcile } from '../reconcile.js';
import { artifactEntries } from '../result/artifact-view.js';
import { isoTime, provenanceFor } from '../result/package-parts.js';
import { buildResult } from '../result/build-result.js';
import { attentionItem, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import { nextAction } from '../next-action.js';
import type { JobRecord, WorkspaceRecord } from '../store/sqlite-store.js';
import { jobOutputEvidence } from '../output/job-evidence.js';
import { withBytesSoFar } from '../run/job-result.js';
import { commandLabel } from '../run/job-words.js';
import { requireWorkspace } from './workspace-guards.js';
import { EngineError } from '../errors.js';

export interface StatusInput {
  /** The workspace; without it, the live workspace used most recently. */
  workspaceId?: string;
  /** Without workspaceId: find the workspace from headspace.yml in this directory or its parents (the CLI passes its cwd). */
  manifestDir?: string;
}

/** The excerpt of the latest job's output a status shows: its last lines, not a whole result's worth. */
const STATUS_EXCERPT_BYTES = 600;

/**
 * "Where am I": one workspace and its latest job in one short package, from
 * the store alone (no provider call, so it stays cheap to ask often). Without
 * an id it picks the live workspace whose latest activity (a job start, else
 * its creation) is newest, and says how many others are live.
 */
export async function reportStatus(ctx: EngineContext, input: StatusInput = {}): Promise<ResultPackage> {
  const store = ctx.store();
  const startedAt = ctx.clock.now();
  let ws: WorkspaceRecord | undefined;
  let others = 0;
  let foundFrom: string | null = null;
  if (input.workspaceId === undefined && input.manifestDir !== undefined) {
    const { discoverWorkspace } = await import('../manifest/discover.js');
    const live = (id: string) => {
      const w = store.getWorkspace(id);
      return w !== undefined && w.state !== 'destroyed';
    };
    const found = await discoverWorkspace(ctx.home, input.manifestDir, live);
    if (found.kind === 'ambiguous') {
      throw new EngineError(
        'BAD_ARGUMENT',
        `${found.candidates.length} workspaces were prepared from manifests in ${found.dir}: ${found.candidates.map((c) => `${c.workspaceId} (${c.manifest})`).join(', ')}`,
        { hint: 'name the workspace', action: nextAction('status', { workspaceId: found.candidates[0]!.workspaceId }) },
      );
    }
    if (found.kind === 'unprepared') {
      return buildResult({
        outcome_summary: `${found.manifest} ${found.workspaceId === null ? 'names no valid workspace id' : `names workspace ${found.workspaceId}, which is not prepared`}`,
        status: 'success',
        key_findings: [`manifest: ${found.manifest}`],
        provenance: provenanceFor(ctx, 'status', { startedAt, finishedAt: ctx.clock.now() }),
        attention: [{ kind: 'next-step', text: 'see what prepare would do', action: nextAction('plan', { file: found.manifest }) }],
      });
    }
    if (found.kind === 'found') {
      ws = requireWorkspace(ctx, found.workspaceId);
      foundFrom = found.manifest;
    }
  }
  if (input.workspaceId !== undefined) {
    ws = requireWorkspace(ctx, input.workspaceId);
  } else if (foundFrom === null) {
    const live = store.listWorkspaces().map((w) => ({ w, at: lastActivity(w, store.listJobs(w.id)) }));
    live.sort((a, b) => b.at - a.at);
    ws = live[0]?.w;
    others = Math.max(0, live.length - 1);
  }
  if (ws === undefined) {
    return buildResult({
      outcome_summary: 'no live workspace',
      status: 'success',
      key_findings: ['no live workspace: create one to start'],
      provenance: provenanceFor(ctx, 'status', { startedAt, finishedAt: ctx.clock.now() }),
      attention: [{ kind: 'next-step', text: 'create a workspace', action: { verb: 'create', args: {} } }],
    });
  }
  const jobs = store.listJobs(ws.id);
  // A running job's record counts its bytes only when it ends: its log says what it has printed so far (a new user
  // read "output 0 bytes" beside 62 lines of it).
  const last = jobs[jobs.length - 1];
  const latest = last === undefined ? undefined : withBytesSoFar(last, ctx.logPath(last.id));
  const running = jobs.filter((j) => j.state === 'running').length;
  const attention = await reconcile(ctx, { workspaceId: ws.id });
  // A running job: what a caller asks next is its output so far, or to end it.
  if (latest?.state === 'running') {
    attention.push(
      attentionItem('next-step', 'its output so far', { workspace_id: ws.id, job_id: latest.id, action: nextAction('logs', { jobId: latest.id, tail: 20 }) }),
      attentionItem('next-step', 'to end it', {
        workspace_id: ws.id,
        job_id: latest.id,
        action: nextAction('stop', { workspaceId: ws.id, jobId: latest.id, apply: true }),
      }),
    );
  }
  const findings: KeyFinding[] = [`workspace ${ws.id}: ${ws.state} on ${ws.provider}${ws.purpose ? `, purpose: ${ws.purpose}` : ''}`];
  findings.push(`${jobs.length} job(s)${running > 0 ? `, ${running} running` : ''}`);
  if (latest) findings.push(latestJobFinding(latest));
  if (ws.expiresAt !== null) findings.push(ws.expiresAt <= ctx.clock.now() ? 'expired' : `expires at ${isoTime(ws.expiresAt)}`);
  if (others > 0) findings.push(`${others} other live workspace(s)`);
  if (foundFrom !== null) findings.push(`found from ${foundFrom}`);
  return buildResult({
    outcome_summary: latest
      ? `workspace ${ws.id} is ${ws.state}; latest job ${latest.id} ${latest.state === 'running' ? 'is running' : `ended ${latest.status ?? 'unknown'}`}`
      : `workspace ${ws.id} is ${ws.state}${ws.state === 'destroyed' ? '' : ', with no job yet'}`,
    status: 'success',
    key_findings: findings,
    evidence: latest ? [jobOutputEvidence(ctx, latest, STATUS_EXCERPT_BYTES)] : [],
    artifacts: artifactEntries(store, ws.id),
    resource_usage: { output_bytes: latest?.outputBytes ?? null },
    provenance: provenanceFor(ctx, 'status', { workspace: ws, job: latest, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}

function lastActivity(ws: WorkspaceRecord, jobs: JobRecord[]): number {
  return jobs.reduce((at, j) => Math.max(at, j.startedAt, j.finishedAt ?? 0), ws.createdAt);
}

function latestJobFinding(job: JobRecord): KeyFinding {
  const status = job.state === 'running' ? 'running' : (job.status ?? 'unknown');
  return {
    kind: 'job',
    text: `latest job ${job.id}: ${status} — ${commandLabel(job.argv)}${job.exitCode !== null ? ` (exit ${job.exitCode})` : ''}, started ${isoTime(job.startedAt)}`,
    id: job.id,
    status,
    command: job.argv,
    ...(job.exitCode !== null ? { exit_code: job.exitCode } : {}),
    started_at: isoTime(job.startedAt),
    ...(job.finishedAt !== null ? { finished_at: isoTime(job.finishedAt) } : {}),
  };
}
