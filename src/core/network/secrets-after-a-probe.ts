/**
 * A job whose network was cut for probing the secret redactor (a response's
 * end masked as a value's possible start: egress-response-redact.ts) learnt
 * one answer, and may have kept it in the workspace's files. The cut ended
 * that job's proxy only, so a second run picked up where the first stopped:
 * a red team walked a value a character per run (session 12). So a run with
 * secrets in that workspace, in a fork of it (a fork holds its files), or in
 * one a fork of it was settled back into, is refused before anything is
 * recorded or runs; a run without secrets is not affected. The way on is a
 * fresh workspace.
 */
import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { nextAction } from '../next-action.js';
import { snapshotRecords } from '../snapshots/snapshot-guards.js';

/** How many fork generations are followed back (a chain is short; the bound keeps a corrupt store from looping). */
const LINEAGE_MAX = 64;

export function refuseSecretsAfterAProbe(ctx: EngineContext, workspaceId: string): void {
  const records = snapshotRecords(ctx);
  // Whose files this workspace may hold: the workspaces it was forked from, and the forks whose outputs were
  // taken into any of them by select or apply (review, session 12: a probing fork settled back into its parent).
  const lineage = [workspaceId];
  for (let i = 0; i < lineage.length && lineage.length < LINEAGE_MAX; i++) {
    const id = lineage[i]!;
    const sources = [
      records.forkOf(id)?.parentId,
      ...records
        .outputsOf(id)
        .filter((o) => o.parentId === id && (o.decision === 'select' || o.decision === 'apply'))
        .map((o) => o.childId),
    ];
    for (const source of sources) if (source !== undefined && !lineage.includes(source)) lineage.push(source);
  }
  const cut = ctx.store().networkCutIn(lineage);
  if (cut === undefined) return;
  const where =
    cut.workspaceId === workspaceId ? `workspace ${workspaceId}` : `workspace ${cut.workspaceId}, whose files ${workspaceId} holds through a fork or a settle,`;
  throw new EngineError(
    'POLICY_DENIED',
    `job ${cut.jobId} in ${where} probed the secret redactor at ${new Date(cut.at).toISOString()} (its network was cut); a run with secrets here is refused, since its files may hold what that job learnt; nothing ran`,
    {
      hint: 'run jobs with secrets in a fresh workspace (not a fork of this one); runs without secrets go on here',
      action: nextAction('create', {}),
    },
  );
}
