/**
 * Carries out the SAFE repairs planRepairs() chose, one at a time, each
 * journalled as a `repair` intent before any provider call (so a doctor
 * killed mid-repair is itself visible, and its repair simply re-planned).
 * A repair that fails is reported and the rest still run.
 */
import { rmSync } from 'node:fs';
import type { EngineContext } from '../context.js';
import { currentOwner } from '../store/owner.js';
import { CANCELLED_BY_STOP } from '../store/records.js';
import { describeRepair } from './describe-repair.js';
import { busyWorkspaces } from './gather-diagnosis.js';
import { applySnapshotRepair } from '../snapshots/apply-snapshot-repair.js';
import { issueJobReceipt } from '../receipts/job-receipt.js';
import type { Repair } from './plan-repairs.js';
import type { RemovalDisposition } from '../provider.js';

export interface AppliedRepair {
  repair: Repair;
  ok: boolean;
  /** Not made: its workspace became busy since the diagnosis (who acts on it now). */
  skipped?: string;
  /** What happened, in one line. */
  detail: string;
}

export async function applyRepairs(ctx: EngineContext, repairs: Repair[]): Promise<AppliedRepair[]> {
  const out: AppliedRepair[] = [];
  for (const repair of repairs) {
    if (!repair.safe || repair.action.type === 'none') continue;
    // Asked again now: an operation that began on the workspace since the diagnosis owns what the repair would
    // remove (a checkpoint it is taking, the mounts of a fork it is making), and it is not debris (red team, session 11).
    const busy = repair.workspaceId === null ? undefined : busyWorkspaces(ctx.store()).busy[repair.workspaceId];
    if (busy !== undefined) {
      out.push({
        repair,
        ok: true,
        skipped: busy,
        detail: `not made: ${describeRepair(repair)} — ${busy} began acting on workspace ${repair.workspaceId} since the diagnosis; look again when it ends`,
      });
      continue;
    }
    try {
      const done = await applyOne(ctx, repair);
      // A repair that found, when it came to act, nothing left to repair (an operation finished the thing since).
      if (typeof done === 'string') out.push({ repair, ok: true, detail: done });
      else out.push({ repair, ok: true, skipped: 'changed since the diagnosis', detail: done.kept });
    } catch (error) {
      out.push({ repair, ok: false, detail: `${describeRepair(repair)} failed: ${(error as Error).message}` });
    }
  }
  return out;
}

/** What a repair did, in one line; or, as `kept`, why it found nothing left to do when it came to act. */
type RepairDone = string | { kept: string };

async function applyOne(ctx: EngineContext, repair: Repair): Promise<RepairDone> {
  const store = ctx.store();
  const action = repair.action;
  const journal = <T>(provider: string, fn: () => Promise<T>): Promise<T> => {
    const intent = store.openIntent({
      workspaceId: repair.workspaceId ?? '-',
      jobId: action.type === 'finish-job' ? action.jobId : null,
      op: `repair:${repair.kind}`,
      provider,
      owner: currentOwner(),
      createdAt: ctx.clock.now(),
      traceId: ctx.traceId,
    });
    return fn().then(
      (value) => {
        store.settleIntent(intent, 'done', ctx.clock.now());
        return value;
      },
      (error: unknown) => {
        store.settleIntent(intent, `failed: ${(error as Error).message.slice(0, 200)}`, ctx.clock.now());
        throw error;
      },
    );
  };
  switch (action.type) {
    case 'finish-job': {
      if (action.stopAtProvider) {
        const report = await journal(action.provider, async () => (await ctx.provider(action.provider)).stop(action.workspaceId));
        if (!report.empty)
          throw new Error(`the ${action.provider} provider could not confirm that nothing of job ${action.jobId} remains; the job was left recorded running`);
      }
      const now = ctx.clock.now();
      store.atomically(() => {
        const job = store.getJob(action.jobId);
        if (!job || job.state !== 'running') return;
        const finished = store.finishJob(action.jobId, {
          status: action.status,
          exitCode: null,
          signal: null,
          limitHit: null,
          finishedAt: now,
          outputBytes: job.outputBytes,
          storedBytes: job.storedBytes,
          usage: job.usage,
          note: action.note,
          ...(job.stopRequested ? { cancelledBy: CANCELLED_BY_STOP } : {}),
        });
        // Its receipt in the same commit (#16): no terminal job is without one.
        const ws = store.getWorkspace(action.workspaceId);
        if (ws) issueJobReceipt(ctx, store, ws, finished);
        for (const id of action.intentIds) store.settleIntent(id, `settled by doctor's repair: job ${action.jobId} recorded ${action.status}`, now);
      });
      return `job ${action.jobId} in workspace ${action.workspaceId} recorded ${action.status}: ${action.note}`;
    }
    case 'settle-intent': {
      const now = ctx.clock.now();
      store.atomically(() => {
        if (action.moveWorkspace) {
          const ws = store.getWorkspace(action.moveWorkspace.workspaceId);
          if (ws && ws.state !== action.moveWorkspace.to) {
            store.moveWorkspace(
              ws.id,
              action.moveWorkspace.to,
              now,
              action.moveWorkspace.environmentDigest ? { environmentDigest: action.moveWorkspace.environmentDigest } : {},
            );
          }
        }
        if (action.recordExport) {
          const e = action.recordExport;
          store.recordExport(e.workspaceId, e.name, { to: e.to, sha256: e.sha256, size: e.size, at: now });
        }
        store.settleIntent(action.intentId, action.outcome, now);
      });
      return `${repair.target}: ${action.outcome.replace(/^settled by doctor's repair: /, 'settled as ')}${action.moveWorkspace ? `; workspace ${action.moveWorkspace.workspaceId} recorded ${action.moveWorkspace.to}` : ''}${action.recordExport ? `; export of '${action.recordExport.name}' recorded` : ''}`;
    }
    case 'remove-leftover': {
      const provider = await ctx.provider(action.provider);
      if (!provider.removeLeftover) throw new Error(`the ${action.provider} provider cannot remove leftovers`);
      const removed = await journal(action.provider, () => provider.removeLeftover!(action.leftover));
      if (removed === false)
        return { kept: `kept ${action.leftover.kind} ${action.leftover.target}: it was no longer a leftover when doctor came to remove it` };
      return `removed ${action.leftover.kind} ${action.leftover.target}`;
    }
    case 'remove-workspace': {
      const provider = await ctx.provider(action.provider);
      // The record's look and the journal in one transaction, which a create of the id waits behind and is then refused
      // by: read apart, a create between them had its new workspace removed in its place (red team, session 20).
      const lease = store.leaseDestroyedRecord({
        workspaceId: action.workspaceId,
        provider: action.provider,
        owner: currentOwner(),
        createdAt: ctx.clock.now(),
        traceId: ctx.traceId,
      });
      if ('state' in lease) return { kept: `kept workspace ${action.workspaceId} at the ${action.provider} provider: it is recorded ${lease.state} now` };
      let disposition: RemovalDisposition;
      try {
        if (!(await provider.listWorkspaces()).includes(action.workspaceId)) {
          store.settleIntent(lease.intentId, 'done: the provider no longer held it', ctx.clock.now());
          return { kept: `kept nothing: the ${action.provider} provider no longer holds workspace ${action.workspaceId}` };
        }
        disposition = await provider.remove(action.workspaceId);
      } catch (error) {
        store.settleIntent(lease.intentId, `failed: ${(error as Error).message.slice(0, 200)}`, ctx.clock.now());
        throw error;
      }
      store.settleIntent(lease.intentId, `removed=${disposition.removed.join('+') || 'none'}`, ctx.clock.now());
      if (disposition.unverified.length > 0)
        throw new Error(`the ${action.provider} provider could not verify the removal of: ${disposition.unverified.join(', ')}; doctor will name it again`);
      return `removed workspace ${action.workspaceId} at the ${action.provider} provider (${[
        `removed: ${disposition.removed.join(', ') || 'nothing'}`,
        ...(disposition.retained.length ? [`retained: ${disposition.retained.join(', ')}`] : []),
        ...(disposition.reclaiming?.length ? [`reclaiming: ${disposition.reclaiming.join(', ')}`] : []),
      ].join('; ')})`;
    }
    case 'snapshot':
      return applySnapshotRepair(ctx, action.step, journal);
    case 'remove-file':
      rmSync(action.path, { force: true });
      return `removed ${action.path}`;
    case 'none':
      return 'nothing to do';
  }
}
