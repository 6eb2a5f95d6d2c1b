/**
 * The store's records and how a SQLite row becomes one. Kept apart from the
 * store itself so the store file holds only queries and transactions.
 */
import type { WorkspaceState } from '../lifecycle/transitions.js';
import type { Policy } from '../policy/policy.js';
import type { JobUsage } from '../provider.js';
import type { ResultStatus } from '../status.js';
import type { Owner } from './owner.js';

export type Row = Record<string, unknown>;

export interface WorkspaceRecord {
  id: string;
  provider: string;
  state: WorkspaceState;
  profile: string;
  policy: Policy;
  environmentDigest: string | null;
  purpose: string | null;
  owner: string | null;
  createdAt: number;
  updatedAt: number;
  expiresAt: number | null;
  lifecyclePath: WorkspaceState[];
  /** Job identity slot (job uid 600000 + slot, core/job-identity.ts); null for workspaces made before slots. */
  jobSlot: number | null;
  /** Why it failed once ready (its provider lost it, #22); null otherwise. */
  failureReason: string | null;
}

/** The limit that ended a job. `output_bytes` only in records from before the output budget became a capture cap (#12 item 2). */
export type LimitHit = 'wall_clock' | 'output_bytes' | 'memory';

export interface JobRecord {
  id: string;
  workspaceId: string;
  state: 'running' | 'finished';
  status: ResultStatus | null;
  argv: string[];
  /** Workspace-relative working directory (run --cwd); null for the workspace root. */
  cwd: string | null;
  exitCode: number | null;
  signal: string | null;
  limitHit: LimitHit | null;
  startedAt: number;
  finishedAt: number | null;
  owner: Owner;
  /** Every byte the job printed, including bytes past the output budget. */
  outputBytes: number;
  /** Bytes kept in the job's log file (at most the output budget). */
  storedBytes: number;
  usage: JobUsage;
  stopRequested: boolean;
  /** Set when the terminal record was written by someone other than the job's own process (stop, doctor --repair). */
  note: string | null;
  /** Who cancelled a cancelled job (CANCELLED_BY_STOP, or the canceller its run named, e.g. 'the MCP client'); null otherwise and for older records. */
  cancelledBy: string | null;
}

/** What a job's record says when `stop --apply` (or the stop tool) ended it. */
export const CANCELLED_BY_STOP = 'stop';

export interface IntentRecord {
  id: number;
  workspaceId: string;
  jobId: string | null;
  op: string;
  provider: string;
  owner: Owner;
  createdAt: number;
  settledAt: number | null;
  outcome: string | null;
  /** What the op acts on beyond the workspace: an export's JSON {name, to}, a put's workspace path; null otherwise. */
  target: string | null;
  /** The engine call that wrote it (its result's provenance.trace_id); null for rows from before migration 5. */
  traceId: string | null;
}

export interface InputRecord {
  workspaceId: string;
  jobId: string | null;
  destination: string;
  kind: 'file' | 'directory';
  sizeBytes: number;
  /** A file's sha256, or a directory's manifest digest. */
  sha256: string;
  fileCount: number;
  createdAt: number;
}

export interface ArtifactRecord {
  workspaceId: string;
  name: string;
  purpose: string;
  mediaType: string;
  declaredByJob: string | null;
  declaredAt: number;
  exportedTo: string | null;
  exportedSha256: string | null;
  exportedSize: number | null;
  exportedAt: number | null;
}

export interface JobFinish {
  status: ResultStatus;
  exitCode: number | null;
  signal: string | null;
  limitHit: LimitHit | null;
  finishedAt: number;
  outputBytes: number;
  storedBytes: number;
  usage: JobUsage;
  note?: string;
  /** Only with status cancelled: who cancelled it. */
  cancelledBy?: string;
}

export function toWorkspace(row: Row): WorkspaceRecord {
  return {
    id: String(row.id),
    provider: String(row.provider),
    state: row.state as WorkspaceState,
    profile: String(row.profile),
    policy: JSON.parse(String(row.policy)) as Policy,
    environmentDigest: row.environment_digest === null ? null : String(row.environment_digest),
    purpose: row.purpose === null ? null : String(row.purpose),
    owner: row.owner === null ? null : String(row.owner),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    lifecyclePath: JSON.parse(String(row.lifecycle_path)) as WorkspaceState[],
    jobSlot: row.job_slot === null || row.job_slot === undefined ? null : Number(row.job_slot),
    failureReason: row.failure_reason === null || row.failure_reason === undefined ? null : String(row.failure_reason),
  };
}

export function toJob(row: Row): JobRecord {
  return {
    id: String(row.id),
    workspaceId: String(row.workspace_id),
    state: row.state as JobRecord['state'],
    status: (row.status ?? null) as ResultStatus | null,
    argv: JSON.parse(String(row.argv)) as string[],
    cwd: row.cwd === null || row.cwd === undefined ? null : String(row.cwd),
    exitCode: row.exit_code === null ? null : Number(row.exit_code),
    signal: row.signal === null ? null : String(row.signal),
    limitHit: (row.limit_hit ?? null) as LimitHit | null,
    startedAt: Number(row.started_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    owner: { pid: Number(row.owner_pid), started: row.owner_started === null ? null : String(row.owner_started) },
    outputBytes: Number(row.output_bytes),
    storedBytes: Number(row.stored_bytes),
    usage: row.usage ? (JSON.parse(String(row.usage)) as JobUsage) : {},
    stopRequested: Number(row.stop_requested) === 1,
    note: row.note === null || row.note === undefined ? null : String(row.note),
    cancelledBy: row.cancelled_by === null || row.cancelled_by === undefined ? null : String(row.cancelled_by),
  };
}

export function toIntent(row: Row): IntentRecord {
  return {
    id: Number(row.id),
    workspaceId: String(row.workspace_id),
    jobId: row.job_id === null ? null : String(row.job_id),
    op: String(row.op),
    provider: String(row.provider),
    owner: { pid: Number(row.owner_pid), started: row.owner_started === null ? null : String(row.owner_started) },
    createdAt: Number(row.created_at),
    settledAt: row.settled_at === null ? null : Number(row.settled_at),
    outcome: row.outcome === null ? null : String(row.outcome),
    target: row.target === null || row.target === undefined ? null : String(row.target),
    traceId: row.trace_id === null || row.trace_id === undefined ? null : String(row.trace_id),
  };
}
