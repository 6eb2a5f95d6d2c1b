import { workspaceFileState } from '../files/workspace-file-state.js';
import { unlinkSync } from 'node:fs';
import { removeWorkspaceCa } from '../network/egress-ca.js';
import { nextAction } from '../next-action.js';
import type { EngineContext } from '../context.js';
import { removalPath } from '../lifecycle/transitions.js';
import { reconcileStore } from '../reconcile.js';
import type { ResultPackage } from '../result/result-package.js';
import { buildResult } from '../result/build-result.js';
import { provenanceFor } from '../result/package-parts.js';
import { crashPoint } from '../crash-points.js';
import { currentOwner, isOwnerAlive } from '../store/owner.js';
import type { RemovalDisposition } from '../provider.js';
import { requireLiveWorkspace, requireWorkspace } from './workspace-guards.js';
import { EngineError, isEngineError, ProviderError } from '../errors.js';
import { toEntry } from '../result/artifact-view.js';
import { displayHostPath, quotedName } from '../result/visible-text.js';
import { snapshotRecords } from '../snapshots/snapshot-guards.js';
import type { OutputRecord } from '../snapshots/snapshot-records.js';

const describeOutput = (o: OutputRecord) => `${o.id} (fork ${o.childId} of ${o.parentId})`;

export interface DestroyInput {
  workspaceId: string;
  force?: boolean;
  /** When the provider fails the removal (exit 7: its engine gone, say), record the workspace destroyed anyway; what the provider holds of it is left. */
  abandon?: boolean;
}

/** What the provider held, said unverified when a removal it failed is abandoned. */
const ABANDONED_RESOURCES: RemovalDisposition = { removed: [], retained: [], unverified: ['runtime', 'storage'] };

/**
 * Removes a workspace along the fixed removal path (never from running).
 * Reports what the provider removed, retained, or could not verify, and
 * what it is still reclaiming in the background (never counted as removed).
 */
export async function destroyWorkspace(ctx: EngineContext, input: DestroyInput): Promise<ResultPackage> {
  return (await destroyReporting(ctx, input)).result;
}

/** destroy, with what the provider said it removed as data too: a batch settling its forks reports each one's (#16). */
export async function destroyReporting(ctx: EngineContext, input: DestroyInput): Promise<{ result: ResultPackage; removed: string[]; unverified: string[] }> {
  const store = ctx.store();
  const records = snapshotRecords(ctx);
  // The checks' reads and reconcile's in one read transaction: one snapshot, one read lock (#20). The lease below checks again atomically.
  const { ws, artifacts, outputs, reconciled } = store.readConsistently(() => {
    const found = requireWorkspace(ctx, input.workspaceId);
    // Destroyed already (a retry after a timeout, a second agent): said as such, not "create a new one".
    if (found.state === 'destroyed')
      throw new EngineError(
        'WORKSPACE_DESTROYED',
        `workspace ${found.id} was already destroyed (at ${new Date(found.updatedAt).toISOString()}); nothing was done`,
        {
          hint: 'nothing of it is left to remove; its record stays listed with ls all',
          action: nextAction('ls', { all: true }),
        },
      );
    const live = requireLiveWorkspace(ctx, input.workspaceId);
    // Refused at once while a job runs (what refuseIfRunning does, on the record just read).
    if (live.state === 'running') throw store.busyError(live.id);
    const listed = store.listArtifacts(live.id);
    return { ws: live, artifacts: listed, outputs: records.outputsOf(live.id), reconciled: reconcileStore(ctx, live.id, { ws: live, artifacts: listed }) };
  });
  const unexported = artifacts.filter((a) => a.exportedTo === null);
  if (unexported.length > 0 && input.force !== true) {
    // A declaration no job ever fulfilled cannot be exported: "export them first" sent a new user round in circles.
    const provider = await ctx.provider(ws.provider);
    const missing: string[] = [];
    for (const a of unexported) if ((await workspaceFileState(provider, ws.id, a.name)) === 'missing') missing.push(a.name);
    const never = missing.length === 0 ? '' : ` (never produced, no such file: ${missing.map(quotedName).join(', ')})`;
    throw new EngineError(
      'WOULD_DISCARD',
      `workspace ${ws.id} has declared artifacts that were never exported: ${unexported.map((a) => quotedName(a.name)).join(', ')}${never}; nothing was removed`,
      {
        hint:
          missing.length === 0
            ? 'force discards them deliberately; to keep them, export them first'
            : `withdraw a declaration that was never produced (declare with remove)${missing.length < unexported.length ? ', export the others' : ''}, or discard them deliberately with force`,
        action:
          // The safe way out is the call: an agent that follows `action` must not be handed the one that throws the work away.
          missing.length === 0
            ? nextAction('export', { workspaceId: ws.id, name: unexported[0]!.name }, ['to'])
            : nextAction('declare', { workspaceId: ws.id, name: missing[0]!, remove: true }),
      },
    );
  }
  // Sealed outputs this workspace is the parent or the fork of: destroying either side leaves them unsettleable (#14 review).
  const unsettled = outputs.filter((o) => o.state === 'sealed');
  if (unsettled.length > 0 && input.force !== true) {
    throw new EngineError(
      'WOULD_DISCARD',
      `workspace ${ws.id} has sealed outputs not settled yet: ${unsettled.map(describeOutput).join(', ')}; destroying it would leave them unsettleable; nothing was removed`,
      {
        hint: 'settle them first (select or apply takes one into its parent, release lets it go), or destroy with force, which releases them',
        // Release, whichever side goes: work settled into a parent about to be destroyed goes with it, and select into a
        // parent that has moved is refused (a new user was offered a select that failed, then an apply that conflicted).
        action: nextAction('settle', { outputId: unsettled[0]!.id, decision: 'release' }),
      },
    );
  }
  // What the destroy itself settles is not attention: its unexported artifacts (named as discarded) and its expiry
  // ("the next gc will remove it" of the workspace just removed, red team, session 19).
  const attention = reconciled.filter((a) => a.kind !== 'unexported-artifact' && !(a.kind === 'expired' && a.workspace_id === ws.id));
  const path = removalPath(ws.state);
  const startedAt = ctx.clock.now();
  const provider = await ctx.provider(ws.provider);
  // The intent is the lease: taken atomically, so no job can start in a workspace being removed.
  const intent = store.leaseWorkspace({
    workspaceId: ws.id,
    op: 'remove',
    provider: ws.provider,
    owner: currentOwner(),
    createdAt: startedAt,
    traceId: ctx.traceId,
  });
  crashPoint('remove', 'after-intent');
  let disposition: RemovalDisposition;
  /** Why the removal was abandoned (the provider's failure), when it was. */
  let abandoned: string | null = null;
  try {
    disposition = await provider.remove(ws.id);
    crashPoint('remove', 'after-provider-call');
  } catch (error) {
    // The machinery failing (exit 7), or the provider throwing what it never meant to (an unreadable folder on native):
    // either way a removal that cannot be made. A refusal (bad id, busy) is no failure to abandon over.
    const failure = !isEngineError(error)
      ? new ProviderError(`the ${ws.provider} provider failed removing workspace ${ws.id}: ${(error as Error).message}`, {
          hint: 'doctor names what is broken',
          action: nextAction('doctor', { provider: ws.provider }),
          cause: error,
        })
      : error.category === 'infrastructure_failure'
        ? error
        : null;
    if (failure !== null && input.abandon === true) {
      // Asked for by name, and only for a failure of the machinery: the record goes, what the provider holds stays,
      // said unverified; doctor names it (a provider holding a workspace recorded destroyed) if that provider answers again.
      abandoned = failure.message;
      disposition = ABANDONED_RESOURCES;
    } else {
      // Leave the workspace as it was: marking it destroyed would hide
      // whatever the provider failed to remove. The caller can retry.
      store.settleIntent(intent, `failed: ${(error as Error).message.slice(0, 200)}`, ctx.clock.now());
      if (failure === null) throw error;
      // An engine gone for good would fail every retry: the way out is named, beside the provider's own remedy.
      throw new EngineError(failure.code, failure.message, {
        hint: `${failure.hint ?? 'doctor names what is broken'}; if the ${ws.provider} provider will never remove it (its engine gone for good), destroy with abandon (from the command line or the library; not offered over MCP) records the workspace destroyed and leaves what it holds of it`,
        ...(failure.action === undefined ? {} : { action: failure.action }),
        cause: failure,
      });
    }
  }
  // Its jobs and its record as destroyed are read in the same commit (#20: no read transaction after it).
  const { jobs, destroyed } = store.atomically(() => {
    store.settleIntent(
      intent,
      abandoned !== null
        ? `abandoned: ${abandoned.slice(0, 200)}`
        : `removed=${disposition.removed.join('+') || 'none'}${disposition.reclaiming?.length ? ` reclaiming=${disposition.reclaiming.join('+')}` : ''}`,
      ctx.clock.now(),
    );
    // An earlier destroy of it that was cut short (its process gone) is finished by this one: settled with it, so the
    // next verb does not still say "destroy it again" of a destroyed workspace.
    for (const stale of store.openIntents())
      if (stale.workspaceId === ws.id && stale.op === 'remove' && stale.id !== intent && !isOwnerAlive(stale.owner))
        store.settleIntent(stale.id, `removed (finished by intent #${intent})`, ctx.clock.now());
    const moved = store.moveWorkspaceThrough(ws.id, path.slice(1), ctx.clock.now());
    // Released with the destroy, in one commit: forced, they are let go rather than left sealed against a workspace that is gone.
    for (const o of unsettled) if (records.beginSettle(o.id, 'release')) records.finishSettle(o.id, ctx.clock.now());
    return { jobs: store.listJobs(ws.id), destroyed: moved };
  });
  const warnings =
    abandoned !== null
      ? [
          `the ${ws.provider} provider failed the removal (${abandoned}); abandoned as asked: the workspace is recorded destroyed, and whatever the provider still holds of it is left there (doctor names it, and its repair with apply removes it, if that provider answers again)`,
        ]
      : disposition.unverified.length
        ? [`the ${ws.provider} provider could not verify the removal of: ${disposition.unverified.join(', ')}`]
        : [];
  // The workspace's egress CA (#18 item 3) goes with it: its keys serve no other workspace.
  removeWorkspaceCa(ctx.home, ws.id);
  let logsRemoved = 0;
  for (const job of jobs) {
    removeLog(ctx.logPath(job.id));
    logsRemoved++;
  }
  ctx.events.emit({ type: 'workspace.destroyed', workspaceId: ws.id });
  const list = (xs: string[]) => (xs.length ? xs.join(', ') : '(none)');
  const discarded = unexported.map((a) => `discarded declared artifact ${quotedName(a.name)} (${a.purpose})`);
  const survivors = artifacts
    .filter((a) => a.exportedTo !== null)
    .map((a) => `export survives: ${quotedName(a.name)} at ${a.exportedTo === null ? '' : displayHostPath(a.exportedTo)} (sha256:${a.exportedSha256})`);
  const result = buildResult({
    outcome_summary:
      abandoned !== null
        ? `workspace ${ws.id} was recorded destroyed; its removal on ${ws.provider} failed and was abandoned`
        : `workspace ${ws.id} was destroyed on ${ws.provider}`,
    status: 'success',
    key_findings: [
      `removed: ${list([...disposition.removed, ...(logsRemoved ? ['job logs'] : [])])}`,
      `retained: ${list(disposition.retained)}${keptForForks(ctx, ws.id, disposition.retained)}`,
      `unverified: ${list(disposition.unverified)}`,
      ...(disposition.reclaiming?.length
        ? [`reclaiming: ${list(disposition.reclaiming)} (unreachable now; deleted in the background; doctor finishes an interrupted reclaim)`]
        : []),
      `lifecycle path: ${path.join(' -> ')}`,
      ...discarded,
      ...unsettled.map((o) => `released unsettled output ${describeOutput(o)}: its changes were not taken into ${o.parentId}`),
      ...survivors,
    ],
    artifacts: artifacts.map(toEntry),
    warnings,
    provenance: provenanceFor(ctx, 'destroy', {
      workspace: destroyed,
      caps: await provider.capabilities().catch(() => null),
      startedAt,
      finishedAt: ctx.clock.now(),
    }),
    attention,
  });
  return { result, removed: [...disposition.removed, ...(logsRemoved ? ['job logs'] : [])], unverified: [...disposition.unverified] };
}

/** Why storage is retained when live forks still read its layers (native keeps a parent's image for them): their names. */
function keptForForks(ctx: EngineContext, id: string, retained: readonly string[]): string {
  if (!retained.includes('storage')) return '';
  const store = ctx.store();
  const live = snapshotRecords(ctx)
    .childrenOf(id)
    .map((f) => f.childId)
    .filter((child) => {
      const state = store.getWorkspace(child)?.state;
      return state !== undefined && state !== 'destroyed';
    });
  return live.length === 0 ? '' : ` (storage: forks ${live.join(', ')} still read its layers; it goes with the last of them)`;
}

/** A job's log file, gone: one unlink (rmSync's lstat-then-unlink walk cost more than the unlink, #20); already gone is fine. */
function removeLog(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
