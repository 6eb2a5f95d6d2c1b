import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { ID_PATTERN } from '../ids.js';
import { nextAction, type NextAction } from '../next-action.js';
import { formatBytes } from '../policy/effective-policy.js';
import type { LiveUsage, WorkspaceDescriptor } from '../provider.js';
import { buildResult } from '../result/build-result.js';
import { isoTime, provenanceFor } from '../result/package-parts.js';
import { attentionItem, type AttentionItem, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import type { ResultStatus } from '../status.js';
import { isOwnerAlive } from '../store/owner.js';
import type { JobRecord, WorkspaceRecord } from '../store/sqlite-store.js';

export interface WatchInput {
  /** A workspace id (its running job, else its latest) or a job id. */
  handle: string;
  /** Watch for at most this many seconds. */
  forSeconds: number;
  /** Seconds between samples (default 5, or forSeconds when shorter). */
  everySeconds?: number;
  /** A violation (not_running) when no job runs. */
  requireRunning?: boolean;
  /** A violation (progress_stale) when a running job shows no new output and no change in its workspace's storage for progressTimeoutSeconds. */
  requireProgress?: boolean;
  /** With requireProgress: how long without progress is stale (default 60). */
  progressTimeoutSeconds?: number;
  /** Ends the watch with the report so far (status cancelled). */
  signal?: AbortSignal;
  /** Called with each sample as it is taken (the CLI prints it). */
  onSample?: (sample: WatchSample) => void;
}

/** One look at what is watched; a figure nobody could read is null. */
export interface WatchSample {
  type: 'sample';
  at: string;
  elapsed_seconds: number;
  workspace_id: string;
  job_id: string | null;
  /** The job's: running, or its status once ended; without a job, the workspace's lifecycle state. */
  state: string;
  workspace_state: string;
  /** The provider's view of the workspace: ready, missing, or unknown when it could not be asked. */
  provider_state: 'ready' | 'missing' | 'unknown';
  /**
   * The workspace's CPU seconds, every job it has run counted (the provider
   * samples its cgroup, not one job's); memory, pids and storage are the
   * workspace's too. A job's own CPU is in its result once it ends.
   */
  cpu_seconds: number | null;
  memory_bytes: number | null;
  pids: number | null;
  storage_bytes: number | null;
  /** Bytes of the job's output kept so far. */
  output_bytes: number | null;
  last_output_at: string | null;
}

export type WatchViolationCode = 'not_running' | 'progress_stale' | 'budget_near' | 'runtime_unhealthy';

export interface WatchViolation {
  code: WatchViolationCode;
  text: string;
  at: string;
  /** budget_near: which budget, what is used and the budget (bytes or seconds). */
  limit?: 'memory' | 'storage' | 'output' | 'wall_clock';
  used?: number;
  budget?: number;
}

/** budget_near fires at this share of a budget. */
export const BUDGET_NEAR_RATIO = 0.9;
/** The last samples a report carries as structured findings. */
const LAST_SAMPLES = 3;
const DEFAULT_EVERY_SECONDS = 5;
const DEFAULT_PROGRESS_TIMEOUT_SECONDS = 60;

/**
 * Samples a workspace or a job every `everySeconds` for at most `forSeconds`
 * (state, cpu, memory, pids, storage, output, last output), checks each
 * sample against what the caller requires, and ends at the first violation
 * (status failure), at the deadline (success) or when the signal aborts
 * (cancelled), with the report. Every sample and the report are appended,
 * one JSON line each, to HEADSPACE_HOME/watch/<handle>-<trace id>.jsonl.
 */
export async function watchTarget(ctx: EngineContext, input: WatchInput): Promise<ResultPackage> {
  const target = resolveTarget(ctx, input.handle);
  const forMs = secondsIn('forSeconds', input.forSeconds, 0, 86_400) * 1000;
  const everyMs = secondsIn('everySeconds', input.everySeconds ?? Math.min(DEFAULT_EVERY_SECONDS, forMs / 1000), 0.1, 3600) * 1000;
  if (input.progressTimeoutSeconds !== undefined && input.requireProgress !== true) {
    throw new EngineError('BAD_ARGUMENT', `${inputRef('progressTimeoutSeconds')} applies only with ${inputRef('requireProgress')}`, {
      hint: `add ${inputRef('requireProgress')}, or leave ${inputRef('progressTimeoutSeconds')} out`,
      inputsOf: 'watch',
    });
  }
  const staleMs = secondsIn('progressTimeoutSeconds', input.progressTimeoutSeconds ?? DEFAULT_PROGRESS_TIMEOUT_SECONDS, 0, 86_400) * 1000;
  const store = ctx.store();
  const provider = await ctx.provider(target.workspace.provider);
  const recordDir = join(ctx.home, 'watch');
  mkdirSync(recordDir, { recursive: true, mode: 0o700 });
  const recordPath = join(recordDir, `${input.handle}-${ctx.traceId}.jsonl`);
  const record = (line: object) => appendFileSync(recordPath, `${JSON.stringify(line)}\n`, { mode: 0o600 });

  const startedAt = ctx.clock.now();
  const samples: WatchSample[] = [];
  let violation: WatchViolation | null = null;
  let progress: { jobId: string | null; output: number | null; storage: number | null; at: number } | null = null;
  let lastWs = target.workspace;
  let lastJob = target.job;
  for (;;) {
    const now = ctx.clock.now();
    const ws = store.getWorkspace(target.workspace.id) ?? lastWs;
    const job = target.job ? (store.getJob(target.job.id) ?? target.job) : watchedJob(store.listJobs(ws.id));
    lastWs = ws;
    lastJob = job;
    const view = await provider.inspect(ws.id).then(
      (v): WorkspaceDescriptor | Error => v,
      (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
    );
    const usage: LiveUsage = ws.state === 'destroyed' || view instanceof Error ? {} : ((await provider.liveUsage?.(ws.id).catch(() => ({}))) ?? {});
    const output = outputSoFar(ctx, job, now);
    // The watched job's output so far, for whoever reports progress (MCP's notifications said 0 bytes beside samples counting it).
    if (job !== undefined && output.bytes !== null) ctx.events.emit({ type: 'job.output-size', jobId: job.id, bytes: output.bytes });
    const storage = view instanceof Error ? null : (view.storageBytes ?? null);
    // Progress: new output, or a change in the workspace's storage (files written), seen since the last sample.
    if (progress === null || progress.jobId !== (job?.id ?? null)) {
      progress = { jobId: job?.id ?? null, output: output.bytes, storage, at: Math.max(job?.startedAt ?? now, Math.min(output.lastAt ?? 0, now)) };
    } else if (output.bytes !== progress.output || storage !== progress.storage) {
      progress = { jobId: progress.jobId, output: output.bytes, storage, at: now };
    }
    const sample: WatchSample = {
      type: 'sample',
      at: isoTime(now)!,
      elapsed_seconds: (now - startedAt) / 1000,
      workspace_id: ws.id,
      job_id: job?.id ?? null,
      state: job ? (job.state === 'running' ? 'running' : (job.status ?? 'unknown')) : ws.state,
      workspace_state: ws.state,
      provider_state: view instanceof Error ? 'unknown' : view.state,
      cpu_seconds: usage.cpuSeconds ?? null,
      memory_bytes: usage.memoryBytes ?? null,
      pids: usage.pids ?? null,
      storage_bytes: storage,
      output_bytes: output.bytes,
      last_output_at: isoTime(progress.output !== null && progress.output > 0 ? progress.at : null),
    };
    samples.push(sample);
    record(sample);
    try {
      input.onSample?.(sample);
    } catch {
      // A face that cannot show a sample (a closed pipe) does not end the watch.
    }
    violation = checkSample({ ws, job, view, sample, now, progressAt: progress.at, staleMs, input });
    if (violation !== null || input.signal?.aborted) break;
    const remaining = startedAt + forMs - ctx.clock.now();
    if (remaining <= 0) break;
    await ctx.clock.sleep(Math.min(everyMs, remaining), input.signal);
    if (input.signal?.aborted) break;
  }
  const finishedAt = ctx.clock.now();
  const status: ResultStatus = violation !== null ? 'failure' : input.signal?.aborted ? 'cancelled' : 'success';
  record({
    type: 'report',
    status,
    handle: input.handle,
    violations: violation ? [violation] : [],
    samples: samples.length,
    started_at: isoTime(startedAt),
    finished_at: isoTime(finishedAt),
  });
  return report(ctx, { input, ws: lastWs, job: lastJob, samples, violation, status, startedAt, finishedAt, recordPath, everyMs });
}

/** A number of seconds above 0 (at least `min` when given) and at most `max`. */
function secondsIn(key: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value < min || value > max) {
    const floor = min > 0 ? `at least ${min}` : 'above 0';
    throw new EngineError('BAD_ARGUMENT', `${inputRef(key)} takes a number of seconds ${floor} and at most ${max}`, {
      hint: `for example ${inputRef(key, 30)}`,
      inputsOf: 'watch',
    });
  }
  return value;
}

function resolveTarget(ctx: EngineContext, handle: string): { workspace: WorkspaceRecord; job?: JobRecord } {
  if (typeof handle !== 'string' || !ID_PATTERN.test(handle) || handle.includes('..')) {
    throw new EngineError('BAD_ID', `${JSON.stringify(String(handle).slice(0, 70))} is not a valid workspace or job id`, {
      hint: 'list the workspaces',
      action: nextAction('ls'),
    });
  }
  const store = ctx.store();
  const found = ((): { workspace: WorkspaceRecord; job?: JobRecord } | undefined => {
    const ws = store.getWorkspace(handle);
    if (ws) return { workspace: ws };
    const job = store.getJob(handle);
    return job ? { workspace: store.getWorkspace(job.workspaceId)!, job } : undefined;
  })();
  if (!found) throw new EngineError('WORKSPACE_NOT_FOUND', `no workspace or job ${handle}`, { hint: 'list the workspaces', action: nextAction('ls') });
  if (found.workspace.state === 'destroyed') {
    throw new EngineError('WORKSPACE_DESTROYED', `workspace ${found.workspace.id} is destroyed: nothing there to watch`, {
      hint: 'create a new one',
      action: nextAction('create'),
    });
  }
  return found;
}

/** A workspace's watched job: the latest that runs, else the latest. */
function watchedJob(jobs: JobRecord[]): JobRecord | undefined {
  return jobs.filter((j) => j.state === 'running').at(-1) ?? jobs.at(-1);
}

/** A running job's output so far is its log (counted into its record only at the end); a finished job's, its record. */
function outputSoFar(ctx: EngineContext, job: JobRecord | undefined, now: number): { bytes: number | null; lastAt: number | null } {
  if (!job) return { bytes: null, lastAt: null };
  if (job.state !== 'running') return { bytes: job.storedBytes, lastAt: job.finishedAt };
  try {
    const stat = statSync(ctx.logPath(job.id));
    return { bytes: stat.size, lastAt: stat.size > 0 ? Math.min(stat.mtimeMs, now) : null };
  } catch {
    return { bytes: 0, lastAt: null };
  }
}

interface SampleFacts {
  ws: WorkspaceRecord;
  job: JobRecord | undefined;
  view: WorkspaceDescriptor | Error;
  sample: WatchSample;
  now: number;
  progressAt: number;
  staleMs: number;
  input: WatchInput;
}

/** The first violation a sample shows, in a fixed order: the runtime, running, budgets, progress. */
function checkSample(f: SampleFacts): WatchViolation | null {
  const at = f.sample.at;
  const live = f.ws.state !== 'destroyed' && f.ws.state !== 'requested';
  if (live && f.view instanceof Error) {
    return {
      code: 'runtime_unhealthy',
      at,
      text: `the ${f.ws.provider} provider could not be asked about workspace ${f.ws.id}: ${f.view.message.slice(0, 200)}`,
    };
  }
  if (live && !(f.view instanceof Error) && f.view.state === 'missing') {
    return { code: 'runtime_unhealthy', at, text: `workspace ${f.ws.id} is recorded as ${f.ws.state} but the ${f.ws.provider} provider no longer knows it` };
  }
  if (f.job?.state === 'running' && !isOwnerAlive(f.job.owner)) {
    return { code: 'runtime_unhealthy', at, text: `job ${f.job.id} is recorded as running but its process (pid ${f.job.owner.pid}) is gone` };
  }
  const running = f.job?.state === 'running';
  if (f.input.requireRunning === true && !running) {
    return {
      code: 'not_running',
      at,
      text: f.job ? `job ${f.job.id} is not running: it ended ${f.job.status ?? 'unknown'}` : `no job runs in workspace ${f.ws.id} (${f.ws.state})`,
    };
  }
  const near = nearestBudget(f);
  if (near) return near;
  if (f.input.requireProgress === true && running && f.now - f.progressAt >= f.staleMs) {
    return {
      code: 'progress_stale',
      at,
      text: `job ${f.job!.id} has printed nothing new and changed no workspace storage for ${Math.round((f.now - f.progressAt) / 1000)} s (the limit is ${f.staleMs / 1000} s)`,
    };
  }
  return null;
}

function nearestBudget(f: SampleFacts): WatchViolation | null {
  const budget = f.ws.policy.budget;
  const running = f.job?.state === 'running';
  const checks: Array<{ limit: NonNullable<WatchViolation['limit']>; used: number | null; budget: number; unit: 'bytes' | 'seconds' }> = [
    { limit: 'memory', used: f.sample.memory_bytes, budget: budget.memoryBytes, unit: 'bytes' },
    { limit: 'storage', used: f.sample.storage_bytes, budget: budget.storageBytes, unit: 'bytes' },
    { limit: 'output', used: running ? f.sample.output_bytes : null, budget: budget.outputBytes, unit: 'bytes' },
    { limit: 'wall_clock', used: running ? Math.max(0, (f.now - f.job!.startedAt) / 1000) : null, budget: budget.wallClockSeconds, unit: 'seconds' },
  ];
  for (const c of checks) {
    if (c.used === null || c.budget <= 0 || c.used < c.budget * BUDGET_NEAR_RATIO) continue;
    const pct = Math.floor((c.used / c.budget) * 100);
    const shown = c.unit === 'bytes' ? `${formatBytes(c.used)} of ${formatBytes(c.budget)}` : `${c.used.toFixed(1)} s of ${c.budget} s`;
    return {
      code: 'budget_near',
      at: f.sample.at,
      limit: c.limit,
      used: c.used,
      budget: c.budget,
      text: `${c.limit.replace('_', ' ')} at ${pct}% of its budget (${shown})`,
    };
  }
  return null;
}

interface ReportFacts {
  input: WatchInput;
  ws: WorkspaceRecord;
  job: JobRecord | undefined;
  samples: WatchSample[];
  violation: WatchViolation | null;
  status: ResultStatus;
  startedAt: number;
  finishedAt: number;
  recordPath: string;
  everyMs: number;
}

function report(ctx: EngineContext, r: ReportFacts): ResultPackage {
  const seconds = Math.round((r.finishedAt - r.startedAt) / 100) / 10;
  // Named as asked: a watch of a workspace is of the workspace, with the job it followed (it read "watch of job c2" to a new user who watched cc).
  const what = r.input.handle === r.ws.id ? `workspace ${r.ws.id}${r.job ? ` (job ${r.job.id})` : ''}` : r.job ? `job ${r.job.id}` : `workspace ${r.ws.id}`;
  const outcome =
    r.violation !== null
      ? `watch of ${what} ended at the first violation, ${r.violation.code}: ${r.violation.text}`
      : r.status === 'cancelled'
        ? `watch of ${what} cancelled after ${seconds} s (${r.samples.length} sample(s)), no violation so far`
        : `watched ${what} for ${seconds} s: ${r.samples.length} sample(s), no violation`;
  const findings: KeyFinding[] = [`${r.samples.length} sample(s) every ${r.everyMs / 1000} s over ${seconds} s`];
  const summary = summarise(r.samples);
  if (summary) findings.push(summary);
  if (r.violation) findings.push({ kind: 'violation', ...r.violation });
  for (const s of r.samples.slice(-LAST_SAMPLES)) findings.push({ kind: 'watch-sample', text: sampleLine(s), ...s, status: s.state });
  findings.push({ kind: 'watch-record', text: `samples and report, one JSON line each: ${r.recordPath}`, record_path: r.recordPath });
  const peak = (key: 'memory_bytes' | 'pids') => r.samples.reduce<number | null>((m, s) => (s[key] === null ? m : Math.max(m ?? 0, s[key])), null);
  const last = r.samples.at(-1);
  return buildResult({
    outcome_summary: outcome,
    status: r.status,
    key_findings: findings,
    resource_usage: {
      // Rounded as a run's is: the cgroup's nanoseconds printed whole read "cpu 0.833441065 s".
      cpu_seconds: last?.cpu_seconds == null ? null : Math.round(last.cpu_seconds * 1000) / 1000,
      max_memory_bytes: peak('memory_bytes'),
      max_memory_scope: peak('memory_bytes') === null ? null : 'workspace',
      peak_pids: peak('pids'),
      storage_bytes: last?.storage_bytes ?? null,
      output_bytes: last?.output_bytes ?? null,
    },
    provenance: { ...provenanceFor(ctx, 'watch', { workspace: r.ws, job: r.job }), started_at: isoTime(r.startedAt), finished_at: isoTime(r.finishedAt) },
    attention: r.violation ? [violationAttention(r.violation, r.ws, r.job)] : [],
  });
}

/** One line over all samples: the ranges seen. */
function summarise(samples: WatchSample[]): string | null {
  const range = (key: 'memory_bytes' | 'output_bytes' | 'storage_bytes', label: string) => {
    const values = samples.map((s) => s[key]).filter((v): v is number => v !== null);
    if (values.length === 0) return null;
    const [lo, hi] = [Math.min(...values), Math.max(...values)];
    return lo === hi ? `${label} ${formatBytes(hi)}` : `${label} ${formatBytes(lo)}–${formatBytes(hi)}`;
  };
  const states = [...new Set(samples.map((s) => s.state))].join(' → ');
  const parts = [`state ${states}`, range('memory_bytes', 'memory'), range('storage_bytes', 'storage'), range('output_bytes', 'output')].filter(Boolean);
  return samples.length === 0 ? null : `seen: ${parts.join('; ')}`;
}

/** A sample as one compact line (the CLI's live view on a terminal, and each sample finding's text). */
export function sampleLine(s: WatchSample): string {
  const fig = (v: number | null, f: (n: number) => string) => (v === null ? '?' : f(v));
  return [
    `+${s.elapsed_seconds.toFixed(1)}s`,
    s.job_id ?? s.workspace_id,
    s.state,
    // The workspace's figures, all jobs counted: "job-… cpu 1.8s" was read as the job's own (0.09 s, a new user).
    `workspace cpu ${fig(s.cpu_seconds, (n) => `${n.toFixed(1)}s`)}`,
    `mem ${fig(s.memory_bytes, formatBytes)}`,
    `pids ${fig(s.pids, String)}`,
    `storage ${fig(s.storage_bytes, formatBytes)}`,
    `output ${fig(s.output_bytes, formatBytes)}`,
  ].join(' ');
}

function violationAttention(v: WatchViolation, ws: WorkspaceRecord, job: JobRecord | undefined): AttentionItem {
  const inspect = nextAction('inspect', { handle: job?.id ?? ws.id });
  const actions: Record<WatchViolationCode, [string, NextAction]> = {
    not_running: [`nothing runs: read what happened`, inspect],
    progress_stale: job ? [`job ${job.id} looks stuck: read its last lines, or end it`, nextAction('logs', { jobId: job.id, tail: 50 })] : ['read it', inspect],
    budget_near: [`${v.limit ?? 'a budget'} is near its budget: look before it is hit`, inspect],
    runtime_unhealthy: ["the provider's view and the record disagree: diagnose", nextAction('doctor', { provider: ws.provider })],
  };
  const [text, action] = actions[v.code];
  return attentionItem('watch-violation', text, { workspace_id: ws.id, ...(job ? { job_id: job.id } : {}), action });
}
