/**
 * `doctor --repair`, planned purely: a Diagnosis (facts gathered at the
 * edge, see gather-diagnosis.ts) in, a list of Repairs out. Each repair says
 * what it acts on, whether it is mechanically safe, and why. `--apply`
 * carries out only the safe ones (apply-repairs.ts); the rest are judgement
 * calls reported with the reason and the command that settles them.
 *
 * Safe means: whatever it removes or records can be proven from the facts,
 * and nothing alive depends on it. Concretely:
 *  - nothing is touched in a workspace where a job or an operation of a
 *    LIVE process is open (`busy`): it may still be doing the work;
 *  - a job recorded running whose process is gone (its foreground caller,
 *    or a detached run's supervisor) is ended at the provider and recorded
 *    by the run machine's rules (run/run-machine.ts): cancelled when a stop
 *    was requested, else infrastructure_failure (the engine died under it),
 *    with a note saying so;
 *  - an intent whose process is gone is settled only with an outcome the
 *    facts prove (the provider holds the workspace, the input was recorded,
 *    the published file has the workspace file's digest, …);
 *  - a provider leftover (cgroup, process, mount, temporary file) is removed
 *    only when its workspace is idle; a workspace folder only when it never
 *    became ready and has no unexported declared artifact;
 *  - a declared, unexported artifact is never deleted: a destroy cut short
 *    is left for `headspace destroy`, which guards them;
 *  - a workspace a provider still holds though its record says destroyed
 *    (a removal the provider could not verify), or though the id's record
 *    is now a later workspace on another provider, is removed at the
 *    provider: its destroy already passed the artifact guards. One the
 *    store has no record of is only reported: it may be anyone's work.
 */
import type { WorkspaceState } from '../lifecycle/transitions.js';
import type { Leftover } from '../provider.js';
import type { ResultStatus } from '../status.js';
import type { IntentRecord } from '../store/sqlite-store.js';
import { settleRun, type RunFact } from '../run/run-machine.js';
import { SNAPSHOT_OPS, planSnapshotIntent, planSnapshotRepairs, type SnapshotFacts, type SnapshotRepairStep } from '../snapshots/plan-snapshot-repairs.js';

export type RepairKind = 'finish-job' | 'settle-intent' | 'remove-leftover' | 'remove-workspace' | 'remove-temporary-file' | 'remove-log' | 'snapshot';

export type RepairAction =
  | {
      type: 'finish-job';
      jobId: string;
      workspaceId: string;
      provider: string;
      stopAtProvider: boolean;
      status: Extract<ResultStatus, 'cancelled' | 'infrastructure_failure'>;
      note: string;
      intentIds: number[];
    }
  | {
      type: 'settle-intent';
      intentId: number;
      outcome: string;
      moveWorkspace?: { workspaceId: string; to: WorkspaceState; environmentDigest?: string };
      recordExport?: { workspaceId: string; name: string; to: string; sha256: string; size: number };
    }
  | { type: 'remove-leftover'; provider: string; leftover: Leftover }
  | { type: 'remove-workspace'; provider: string; workspaceId: string }
  | { type: 'remove-file'; path: string }
  | { type: 'snapshot'; step: SnapshotRepairStep }
  | { type: 'none' };

export interface Repair {
  kind: RepairKind;
  /** What it acts on, in words: `job job-…`, `intent #12`, a path. */
  target: string;
  /** The workspace it concerns, when there is one. */
  workspaceId: string | null;
  /** Mechanically safe: --apply performs it. Otherwise a judgement call, only reported. */
  safe: boolean;
  /** Why it is safe (what --apply does), or why it is not (and what to do instead). */
  reason: string;
  action: RepairAction;
}

/** A workspace as the store and its provider see it. `unknown`: the provider could not be asked. */
export interface WorkspaceFacts {
  state: WorkspaceState;
  provider: string;
  view: 'ready' | 'missing' | 'unknown';
  environmentDigest: string | null;
  unexportedArtifacts: string[];
}

/** An open intent whose process is gone, with what the edge found about its outcome. */
export interface DeadIntent {
  intent: IntentRecord;
  /** run/stop: the job's record now. */
  job?: { state: 'running' | 'finished'; status: ResultStatus | null; ownerAlive: boolean } | null;
  /** put: was the input recorded after the intent was opened? */
  inputRecorded?: boolean;
  /** export: the artifact name and destination, from the intent's target. */
  export?: {
    name: string;
    to: string;
    /** sha256 and size of the host destination, null when it does not exist (or is not a regular file: `exists` says). */
    destination: { exists: boolean; sha256: string | null; size: number | null };
    /** sha256 of the artifact in the workspace now, null when it cannot be read. */
    workspaceSha256: string | null;
    /** `.NAME.headspace-HEX.partial` files beside the destination. */
    partials: string[];
  };
}

export interface OrphanJob {
  id: string;
  workspaceId: string;
  ownerPid: number;
  stopRequested: boolean;
  /** Run intents of this job still open (their process is the same dead one). */
  intentIds: number[];
}

/**
 * A workspace a provider holds that the store does not record as live there: `destroyed` (its record says so; the
 * provider's removal was not verified, or was abandoned), `elsewhere` (the id's record is a later workspace on
 * another provider: a record is replaced only once destroyed, so this one is what that destroy left), or `none`
 * (no record at all: a store replaced or restored from an older copy, or a row removed by hand).
 */
export interface UntrackedWorkspace {
  provider: string;
  workspaceId: string;
  record: 'destroyed' | 'elsewhere' | 'none';
  /** `elsewhere`: the provider the id's record names now. */
  recordedOn?: string;
}

export interface Diagnosis {
  workspaces: Record<string, WorkspaceFacts>;
  /** Workspace id → who keeps it busy: a live job or a live open operation in another process. */
  busy: Record<string, string>;
  deadIntents: DeadIntent[];
  orphanJobs: OrphanJob[];
  leftovers: Array<{ provider: string; leftover: Leftover }>;
  /** Workspaces a provider holds that the store does not record as live; absent: none gathered. */
  untracked?: UntrackedWorkspace[];
  /** Job logs of destroyed workspaces or of jobs the store does not know. */
  strayLogs: string[];
  /** Host destinations that a live export is writing now: their .partial files are in use. */
  liveExportDestinations: string[];
  /** Incomplete checkpoints and interrupted settles (#14); absent: none gathered. */
  snapshots?: SnapshotFacts;
}

const WORKSPACE_FILES_STATES: readonly WorkspaceState[] = ['ready', 'running', 'completed', 'cancelled', 'expired'];

export function planRepairs(d: Diagnosis): Repair[] {
  const repairs: Repair[] = [];
  const jobIntents = new Set(d.orphanJobs.flatMap((j) => j.intentIds));

  for (const job of d.orphanJobs) {
    const ws = d.workspaces[job.workspaceId];
    const status = orphanStatus(job);
    const base = { kind: 'finish-job' as const, target: `job ${job.id}`, workspaceId: job.workspaceId };
    if (d.busy[job.workspaceId]) {
      repairs.push({
        ...base,
        safe: false,
        reason: `${d.busy[job.workspaceId]} is acting on workspace ${job.workspaceId}; look again when it ends`,
        action: { type: 'none' },
      });
      continue;
    }
    if (ws?.view === 'unknown') {
      repairs.push({
        ...base,
        safe: false,
        reason: `its process (pid ${job.ownerPid}) is gone, but the ${ws.provider} provider could not be asked whether anything of it still runs; check doctor of the ${ws.provider} provider`,
        action: { type: 'none' },
      });
      continue;
    }
    const note = `its process (pid ${job.ownerPid}) was gone; doctor's repair ended whatever remained of it and recorded it as ${status}${job.stopRequested ? ' (a stop had been requested)' : ' (the engine died under the job, not the command)'}`;
    repairs.push({
      ...base,
      safe: true,
      reason: `recorded running but its process (pid ${job.ownerPid}) is gone: end what remains at the provider, record it ${status}, settle its intent`,
      action: {
        type: 'finish-job',
        jobId: job.id,
        workspaceId: job.workspaceId,
        provider: ws?.provider ?? '',
        stopAtProvider: ws?.view === 'ready',
        status,
        note,
        intentIds: job.intentIds,
      },
    });
  }

  for (const dead of d.deadIntents) {
    if (jobIntents.has(dead.intent.id)) continue; // settled with its job above
    repairs.push(...planIntent(d, dead));
  }
  repairs.push(...planSnapshotRepairs(d));

  for (const { provider, leftover } of d.leftovers) {
    const id = leftover.workspaceId;
    const base = { kind: 'remove-leftover' as const, target: `${leftover.kind} ${leftover.target}`, workspaceId: id };
    if (id !== null && d.busy[id]) {
      repairs.push({
        ...base,
        safe: false,
        reason: `${leftover.detail}; but ${d.busy[id]} is acting on workspace ${id}, so it may be in use: look again when it ends`,
        action: { type: 'none' },
      });
      continue;
    }
    const ws = id === null ? undefined : d.workspaces[id];
    if (leftover.kind === 'directory' && ws !== undefined && (WORKSPACE_FILES_STATES.includes(ws.state) || ws.unexportedArtifacts.length > 0)) {
      const guard = ws.unexportedArtifacts.length
        ? ` and declared artifacts ${ws.unexportedArtifacts.map((a) => `'${a}'`).join(', ')} were never exported`
        : '';
      repairs.push({
        ...base,
        safe: false,
        reason: `${leftover.detail}; workspace ${id} is recorded ${ws.state}${guard}, so the folder may hold its files: decide by inspecting it, then destroy it`,
        action: { type: 'none' },
      });
      continue;
    }
    repairs.push({ ...base, safe: true, reason: `${leftover.detail}: remove it`, action: { type: 'remove-leftover', provider, leftover } });
  }

  repairs.push(...(d.untracked ?? []).map((u) => planUntracked(d, u)));

  for (const path of d.strayLogs) {
    repairs.push({
      kind: 'remove-log',
      target: path,
      workspaceId: null,
      safe: true,
      reason: 'a job log of a destroyed workspace (or of a job the store does not know): remove it',
      action: { type: 'remove-file', path },
    });
  }
  return repairs;
}

function planUntracked(d: Diagnosis, u: UntrackedWorkspace): Repair {
  const id = u.workspaceId;
  const base = { kind: 'remove-workspace' as const, target: `workspace ${id} at the ${u.provider} provider`, workspaceId: id };
  const held = `the ${u.provider} provider still holds workspace ${id}`;
  if (d.busy[id]) return { ...base, safe: false, reason: `${held}, but ${d.busy[id]} is acting on it; look again when it ends`, action: { type: 'none' } };
  if (u.record !== 'none')
    return {
      ...base,
      safe: true,
      reason:
        u.record === 'destroyed'
          ? `${held}, which is recorded destroyed (its removal there was not verified): remove it at the provider`
          : `${held}, an earlier workspace of that id: the store records ${id} on the ${u.recordedOn ?? 'other'} provider now, made after this one's destroy, whose removal was not verified: remove it at the ${u.provider} provider`,
      action: { type: 'remove-workspace', provider: u.provider, workspaceId: id },
    };
  return {
    ...base,
    safe: false,
    reason: `${held}, of which this home's store has no record (a store replaced, or restored from an older copy?); its files may be someone's work: look at it with the ${u.provider} provider's own tools, and remove it there once nothing in it is needed`,
    action: { type: 'none' },
  };
}

/**
 * The run machine's verdict on a job whose owner (its foreground caller, or
 * a detached run's supervisor) died with no terminal record: the repair ends
 * what remains of it, so its process has vanished too. Cancelled when a stop
 * was pending, else infrastructure_failure; never success, as no exit status
 * survived its owner.
 */
export function orphanStatus(job: { stopRequested: boolean }): Extract<ResultStatus, 'cancelled' | 'infrastructure_failure'> {
  const facts: RunFact[] = [{ kind: 'launched' }];
  if (job.stopRequested) facts.push({ kind: 'stop-requested' });
  facts.push({ kind: 'owner-died' }, { kind: 'process-vanished' });
  const status = settleRun(facts)?.status;
  return status === 'cancelled' ? 'cancelled' : 'infrastructure_failure';
}

function planIntent(d: Diagnosis, dead: DeadIntent): Repair[] {
  const { intent } = dead;
  const id = intent.workspaceId;
  const ws = d.workspaces[id];
  const base = { kind: 'settle-intent' as const, target: `intent #${intent.id} (${intent.op} on workspace ${id})`, workspaceId: id };
  const gone = `its process (pid ${intent.owner.pid}) is gone`;
  const settle = (outcome: string, reason: string, extra: Partial<Extract<RepairAction, { type: 'settle-intent' }>> = {}): Repair => ({
    ...base,
    safe: true,
    reason: `${gone}; ${reason}`,
    action: { type: 'settle-intent', intentId: intent.id, outcome: `settled by doctor's repair: ${outcome}`, ...extra },
  });
  const skip = (reason: string): Repair => ({ ...base, safe: false, reason: `${gone}; ${reason}`, action: { type: 'none' } });

  if (d.busy[id] && intent.op !== 'export') return [skip(`${d.busy[id]} is acting on workspace ${id}; look again when it ends`)];
  if (ws === undefined) return [settle('abandoned (the workspace is not in the store)', 'its workspace is not in the store: settle it as abandoned')];

  if (SNAPSHOT_OPS.includes(intent.op)) return planSnapshotIntent(d, dead, settle, skip);
  switch (intent.op) {
    case 'create': {
      if (ws.state !== 'requested' && ws.state !== 'provisioning')
        return [settle(`superseded (the workspace is ${ws.state})`, `the workspace has moved on to ${ws.state}: settle it`)];
      if (ws.view === 'unknown') return [skip(`the ${ws.provider} provider could not be asked whether the workspace exists`)];
      if (ws.view === 'ready') {
        return [
          settle(
            'created (the provider holds the workspace)',
            'the provider holds the workspace, so the create finished: settle it and record the workspace ready',
            { moveWorkspace: { workspaceId: id, to: 'ready', ...(ws.environmentDigest ? { environmentDigest: ws.environmentDigest } : {}) } },
          ),
        ];
      }
      return [
        settle(
          'failed (the provider does not hold the workspace)',
          'the provider does not hold the workspace, so the create did not finish: settle it and record the workspace failed (destroy removes the record)',
          { moveWorkspace: { workspaceId: id, to: 'failed' } },
        ),
      ];
    }
    case 'run': {
      const job = dead.job;
      if (!job) return [settle('abandoned (no job record)', 'the store has no record of its job: settle it as abandoned')];
      if (job.state === 'finished')
        return [settle(`ran (job ${intent.jobId} finished as ${job.status})`, `its job ${intent.jobId} has its terminal record (${job.status}): settle it`)];
      return [skip(`its job ${intent.jobId} is still recorded running under a live process; look again when it ends`)];
    }
    case 'stop': {
      const job = dead.job;
      if (!job || job.state === 'finished')
        return [settle(`stopped (job ${intent.jobId} ${job ? `finished as ${job.status}` : 'is gone'})`, `the job it stopped has ended: settle it`)];
      return [skip(`job ${intent.jobId} still runs under a live process and the stop may not have reached it: stop it again, with apply`)];
    }
    case 'put': {
      if (dead.inputRecorded) return [settle('done (the input is recorded)', 'the input is recorded, so the copy finished: settle it')];
      const dest = intent.target ?? 'its destination';
      return [
        settle(
          `interrupted (no input recorded; ${dest} in the workspace may hold part of the copy)`,
          `no input was recorded, so the copy did not finish; settle it (${dest} in the workspace may hold part of the copy: put it again with overwrite)`,
        ),
      ];
    }
    case 'export':
      return planExport(d, dead, settle, skip, base);
    case 'remove': {
      if (ws.state === 'destroyed') return [settle('removed (the workspace is destroyed)', 'the workspace is recorded destroyed: settle it')];
      const where = ws.view === 'missing' ? 'after the provider removed it' : 'and the provider still holds (part of) it';
      const force = ws.unexportedArtifacts.length
        ? `, with force (declared artifacts ${ws.unexportedArtifacts.map((a) => `'${a}'`).join(', ')} were never exported and ${ws.view === 'missing' ? 'are already gone' : 'would be discarded'})`
        : '';
      return [skip(`the destroy of workspace ${id} was cut short ${where}; finishing it is a destroy: destroy it again${force}`)];
    }
    default:
      if (intent.op.startsWith('repair'))
        return [settle('abandoned (a repair is re-planned from a fresh diagnosis)', 'repairs are idempotent and re-planned each time: settle it')];
      return [skip(`headspace does not know how to prove the outcome of '${intent.op}'`)];
  }
}

function planExport(
  d: Diagnosis,
  dead: DeadIntent,
  settle: (outcome: string, reason: string, extra?: Partial<Extract<RepairAction, { type: 'settle-intent' }>>) => Repair,
  skip: (reason: string) => Repair,
  base: { target: string; workspaceId: string },
): Repair[] {
  const ex = dead.export;
  if (!ex) return [settle('interrupted (no destination recorded)', 'it recorded no destination: settle it')];
  const out: Repair[] = [];
  const live = d.liveExportDestinations.includes(ex.to);
  for (const partial of ex.partials) {
    out.push(
      live
        ? {
            kind: 'remove-temporary-file',
            target: partial,
            workspaceId: base.workspaceId,
            safe: false,
            reason: `another export to ${ex.to} is running now and may be writing it; look again when it ends`,
            action: { type: 'none' },
          }
        : {
            kind: 'remove-temporary-file',
            target: partial,
            workspaceId: base.workspaceId,
            safe: true,
            reason: `the temporary file of an export whose process is gone; the destination never depends on it: remove it`,
            action: { type: 'remove-file', path: partial },
          },
    );
  }
  if (d.busy[base.workspaceId]) {
    out.push(skip(`${d.busy[base.workspaceId]} is acting on workspace ${base.workspaceId}; look again when it ends`));
    return out;
  }
  const dst = ex.destination;
  if (!dst.exists) out.push(settle(`interrupted (nothing was published at ${ex.to})`, `nothing was published at ${ex.to}: settle it`));
  else if (dst.sha256 !== null && dst.sha256 === ex.workspaceSha256 && dst.size !== null) {
    out.push(
      settle(
        `exported (${ex.to} holds the artifact, sha256:${dst.sha256})`,
        `${ex.to} holds exactly the bytes of '${ex.name}' (sha256:${dst.sha256}), so the publish finished: record the export and settle it`,
        {
          recordExport: { workspaceId: base.workspaceId, name: ex.name, to: ex.to, sha256: dst.sha256, size: dst.size },
        },
      ),
    );
  } else {
    out.push(
      settle(
        `interrupted (${ex.to} holds other bytes and was left untouched)`,
        `${ex.to} exists but does not hold the bytes of '${ex.name}' (it existed before, or the file changed since): leave it untouched and settle the intent`,
      ),
    );
  }
  return out;
}
