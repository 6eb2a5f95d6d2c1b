/**
 * The edge of `doctor --repair`: gathers the facts planRepairs() decides
 * from — the store's open intents and running jobs (whose processes are
 * alive or gone), each workspace as its provider sees it, what each
 * provider reports left behind, an interrupted export's destination and
 * temporary files, stray job logs. It reads; it never changes anything.
 */
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { EngineContext } from '../context.js';
import type { Provider } from '../provider.js';
import type { SqliteStore } from '../store/sqlite-store.js';
import { isOwnerAlive } from '../store/owner.js';
import { gatherSnapshotFacts } from '../snapshots/gather-snapshot-facts.js';
import { settleEach } from '../settle-each.js';
import type { DeadIntent, Diagnosis, OrphanJob, UntrackedWorkspace, WorkspaceFacts } from './plan-repairs.js';

/** How many recorded workspaces' providers a diagnosis asks about at once (doctor's report too; a native inspect reads its image's mount). */
export const INSPECTS_AT_ONCE = 8;

/** An export's intent target: what it publishes and where. */
export interface ExportTarget {
  name: string;
  to: string;
}

export function exportTarget(raw: string | null): ExportTarget | null {
  if (raw === null) return null;
  try {
    const parsed = JSON.parse(raw) as Partial<ExportTarget>;
    return typeof parsed.name === 'string' && typeof parsed.to === 'string' ? { name: parsed.name, to: parsed.to } : null;
  } catch {
    return null;
  }
}

/** The temporary file names export-artifact.ts uses beside `destination`. */
export function partialFilesOf(destination: string): string[] {
  const prefix = `.${basename(destination)}.headspace-`;
  const names = (() => {
    try {
      return readdirSync(dirname(destination));
    } catch {
      return [];
    }
  })();
  return names
    .filter((n) => n.startsWith(prefix) && /^[0-9a-f]{12}\.partial$/.test(n.slice(prefix.length)))
    .sort()
    .map((n) => join(dirname(destination), n));
}

/**
 * `answered`: each workspace's provider view as the caller has just asked it (doctor's report), taken instead of
 * asking again; a workspace not in it is asked.
 */
export async function gatherDiagnosis(
  ctx: EngineContext,
  answered?: ReadonlyMap<string, WorkspaceFacts['view']>,
): Promise<{ diagnosis: Diagnosis; warnings: string[] }> {
  const store = ctx.store();
  const warnings: string[] = [];
  const workspaces: Record<string, WorkspaceFacts> = {};
  const recorded = store.listWorkspaces({ includeDestroyed: true });
  // Every provider asked at once (settle-each.ts says why); a destroyed workspace's provider is not asked.
  const views = await settleEach(recorded, INSPECTS_AT_ONCE, async (ws): Promise<WorkspaceFacts['view']> => {
    if (ws.state === 'destroyed') return 'missing';
    return answered?.get(ws.id) ?? (await (await ctx.provider(ws.provider)).inspect(ws.id)).state;
  });
  for (const [i, ws] of recorded.entries()) {
    const answer = views[i]!;
    const view: WorkspaceFacts['view'] = answer.status === 'fulfilled' ? answer.value : 'unknown';
    workspaces[ws.id] = {
      state: ws.state,
      provider: ws.provider,
      view,
      environmentDigest: ws.environmentDigest,
      unexportedArtifacts:
        ws.state === 'destroyed'
          ? []
          : store
              .listArtifacts(ws.id)
              .filter((a) => a.exportedTo === null)
              .map((a) => a.name),
    };
  }

  const open = store.openIntents();

  const orphanJobs: OrphanJob[] = [];
  for (const job of store.runningJobs()) {
    if (isOwnerAlive(job.owner)) continue;
    const intentIds = open.filter((i) => i.jobId === job.id && !isOwnerAlive(i.owner)).map((i) => i.id);
    orphanJobs.push({ id: job.id, workspaceId: job.workspaceId, ownerPid: job.owner.pid, stopRequested: job.stopRequested, intentIds });
  }

  const deadIntents: DeadIntent[] = [];
  for (const intent of open) {
    if (isOwnerAlive(intent.owner)) continue;
    const dead: DeadIntent = { intent };
    if (intent.jobId !== null) {
      const job = store.getJob(intent.jobId);
      dead.job = job ? { state: job.state, status: job.status, ownerAlive: isOwnerAlive(job.owner) } : null;
    }
    if (intent.op === 'put' && intent.target !== null) dead.inputRecorded = store.inputRecordedSince(intent.workspaceId, intent.target, intent.createdAt);
    if (intent.op === 'export') {
      const target = exportTarget(intent.target);
      if (target) {
        const ws = workspaces[intent.workspaceId];
        let workspaceSha256: string | null = null;
        if (ws?.view === 'ready') {
          try {
            const stream = await (await ctx.provider(ws.provider)).read(intent.workspaceId, target.name);
            const hash = createHash('sha256');
            try {
              for await (const chunk of stream.chunks) hash.update(chunk);
            } finally {
              await stream.close();
            }
            workspaceSha256 = hash.digest('hex');
          } catch {
            workspaceSha256 = null;
          }
        }
        dead.export = { ...target, destination: await hostFileDigest(target.to), workspaceSha256, partials: partialFilesOf(target.to) };
      }
    }
    deadIntents.push(dead);
  }

  const leftovers: Diagnosis['leftovers'] = [];
  const names = ctx.providerNames();
  // Each provider's leftovers and the workspaces it holds asked at once: asked in turn, an engine that answered the
  // probe and then stalled cost doctor one bound for each (red team, session 20).
  const [listed, held] = await Promise.all([
    settleEach(names, names.length, async (name) => {
      const provider = await ctx.provider(name);
      return provider.leftovers ? provider.leftovers() : [];
    }),
    settleEach(names, names.length, async (name) => heldWorkspaces(await ctx.provider(name))),
  ]);
  for (const [i, name] of names.entries()) {
    const answer = listed[i]!;
    if (answer.status === 'rejected') warnings.push(`the ${name} provider could not list its leftovers: ${(answer.reason as Error).message}`);
    else for (const leftover of answer.value) leftovers.push({ provider: name, leftover });
  }
  const untracked = untrackedOf(ctx, names, held, warnings);

  // A workspace created after the list above was read has no facts yet; a leftover naming it (a folder its create
  // was still making) would be planned as one of no workspace. Its record is read now, as the logs below are judged.
  for (const { leftover } of leftovers) {
    const id = leftover.workspaceId;
    if (id === null || workspaces[id] !== undefined) continue;
    const late = store.getWorkspace(id);
    if (late)
      workspaces[id] = { state: late.state, provider: late.provider, view: 'unknown', environmentDigest: late.environmentDigest, unexportedArtifacts: [] };
  }

  const strayLogs: string[] = [];
  const jobsDir = join(ctx.home, 'jobs');
  for (const file of safeReaddir(jobsDir).sort()) {
    if (!file.endsWith('.log')) continue;
    if (isStrayLog(store, file.slice(0, -'.log'.length))) strayLogs.push(join(jobsDir, file));
  }

  const snapshots = await gatherSnapshotFacts(ctx);
  // Who is busy is read last: an operation that began while the facts above were read (a checkpoint's pending
  // record, a fork's mounts before its meta.json) is then seen live, where read first it was not, and its work was
  // planned away as debris (red team, session 11). One that ends in between is caught when the repair is applied.
  const { busy, liveExportDestinations } = busyWorkspaces(store);
  return { diagnosis: { workspaces, busy, deadIntents, orphanJobs, leftovers, untracked, strayLogs, liveExportDestinations, snapshots }, warnings };
}

/**
 * What a provider holds, asked only of a ready provider: one that failed its probe (an engine that did not answer
 * it) says so in doctor's checks, and asking it again would add its whole bound to doctor's time.
 */
async function heldWorkspaces(provider: Provider): Promise<string[]> {
  return (await provider.probe()).ready ? provider.listWorkspaces() : [];
}

/**
 * The workspaces each provider holds that the store does not record as live (a destroy recorded whose removal the
 * provider could not verify left them with nothing that would ever name them again). Each record is read after the
 * providers' lists: a create records its workspace before the provider makes it, so a workspace listed has its
 * record by then unless it has none at all. A record on another provider is a later workspace of the id: a record is
 * replaced only once destroyed (insertWorkspace), so what this provider holds is what that destroy left.
 */
function untrackedOf(
  ctx: EngineContext,
  names: readonly string[],
  held: ReadonlyArray<PromiseSettledResult<string[]>>,
  warnings: string[],
): UntrackedWorkspace[] {
  const store = ctx.store();
  const untracked: UntrackedWorkspace[] = [];
  for (const [i, name] of names.entries()) {
    const answer = held[i]!;
    if (answer.status === 'rejected') {
      warnings.push(`the ${name} provider could not list its workspaces: ${(answer.reason as Error).message}`);
      continue;
    }
    for (const workspaceId of answer.value) {
      const record = store.getWorkspace(workspaceId);
      if (record === undefined) untracked.push({ provider: name, workspaceId, record: 'none' });
      else if (record.provider !== name) untracked.push({ provider: name, workspaceId, record: 'elsewhere', recordedOn: record.provider });
      else if (record.state === 'destroyed') untracked.push({ provider: name, workspaceId, record: 'destroyed' });
    }
  }
  return untracked;
}

/**
 * A job log is stray when the store does not know its job, or knows the job's workspace destroyed, read now from
 * the store: the workspace list read above is older than the jobs folder, and a workspace created in between (its
 * first job's log already open) counted as unknown, so doctor --repair --apply deleted live jobs' output (red team).
 * A job is recorded before its log is opened (recordJob, then executeJob), so a log of an unknown job is a crash's.
 */
function isStrayLog(store: SqliteStore, jobId: string): boolean {
  const job = store.getJob(jobId);
  if (!job) return true;
  return store.getWorkspace(job.workspaceId)?.state === 'destroyed';
}

async function hostFileDigest(path: string): Promise<{ exists: boolean; sha256: string | null; size: number | null }> {
  let info;
  try {
    info = lstatSync(path);
  } catch {
    return { exists: false, sha256: null, size: null };
  }
  if (!info.isFile()) return { exists: true, sha256: null, size: null };
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  } catch {
    return { exists: true, sha256: null, size: null };
  }
  return { exists: true, sha256: hash.digest('hex'), size: info.size };
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Workspace id → who is acting on it now: a live job, or a live open operation (doctor's own repair intents are
 * settled before the next repair is weighed). Also where live exports are writing. Read fresh: applyRepairs asks
 * again just before each repair.
 */
export function busyWorkspaces(store: SqliteStore): { busy: Record<string, string>; liveExportDestinations: string[] } {
  const busy: Record<string, string> = {};
  const liveExportDestinations: string[] = [];
  for (const job of store.runningJobs()) if (isOwnerAlive(job.owner)) busy[job.workspaceId] ??= `job ${job.id} (process ${job.owner.pid})`;
  for (const intent of store.openIntents()) {
    if (!isOwnerAlive(intent.owner)) continue;
    busy[intent.workspaceId] ??= `${intent.op === 'remove' ? 'a destroy' : `an operation '${intent.op}'`} (process ${intent.owner.pid})`;
    const target = intent.op === 'export' ? exportTarget(intent.target) : null;
    if (target) liveExportDestinations.push(target.to);
  }
  return { busy, liveExportDestinations };
}
