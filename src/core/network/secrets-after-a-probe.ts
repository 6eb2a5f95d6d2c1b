/**
 * A job whose network was cut for probing the secret redactor (a response's
 * end masked as a value's possible start: egress-response-redact.ts) learnt
 * one answer, and may have kept it in the workspace's files. The cut ended
 * that job's proxy only, so a second run picked up where the first stopped:
 * a red team walked a value a character per run (session 12). So a run with
 * secrets in that workspace, or in a fork of it (a fork holds its files),
 * is refused before anything is recorded or runs; a run without secrets is
 * not affected. The way on is a fresh workspace.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { snapshotRecords } from '../snapshots/snapshot-guards.js';

/** How many fork generations are followed back (a chain is short; the bound keeps a corrupt store from looping). */
const LINEAGE_MAX = 64;

export function refuseSecretsAfterAProbe(ctx: EngineContext, workspaceId: string): void {
  const records = snapshotRecords(ctx);
  const lineage = [workspaceId];
  for (let parent = records.forkOf(workspaceId)?.parentId; parent !== undefined && lineage.length < LINEAGE_MAX; parent = records.forkOf(parent)?.parentId) {
    if (lineage.includes(parent)) break;
    lineage.push(parent);
  }
  const cut = ctx.store().networkCutIn(lineage);
  if (cut === undefined) return;
  const where = cut.workspaceId === workspaceId ? `workspace ${workspaceId}` : `workspace ${cut.workspaceId}, which ${workspaceId} was forked from,`;
  throw new EngineError(
    'POLICY_DENIED',
    `job ${cut.jobId} in ${where} probed the secret redactor at ${new Date(cut.at).toISOString()} (its network was cut); a run with secrets here is refused, since its files may hold what that job learnt; nothing ran`,
    {
      hint: 'run jobs with secrets in a fresh workspace (not a fork of this one); runs without secrets go on here',
      action: nextAction('create', {}),
    },
  );
}
