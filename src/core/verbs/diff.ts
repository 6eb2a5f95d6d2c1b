import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
import { nextAction, type NextAction } from '../next-action.js';
import { reconcile } from '../reconcile.js';
import { buildResult } from '../result/build-result.js';
import { attentionItem, type Evidence, type KeyFinding, type ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { displayName } from '../result/visible-text.js';
import { readWhole } from '../snapshots/read-whole.js';
import { requireSnapshots, requireUsableCheckpoint, type SnapshotTarget } from '../snapshots/snapshot-guards.js';
import type { CheckpointReader, TreeChange } from '../snapshots/snapshot-ops.js';
import { unifiedDiff } from '../snapshots/unified-diff.js';

export interface DiffInput {
  workspaceId: string;
  /** The checkpoint to compare with; default: the fork baseline of a forked workspace, else its latest checkpoint. */
  from?: string;
  /** Compare with the fork baseline (the workspace must be a fork). */
  sinceFork?: boolean;
  /** Add a unified diff of each changed text file. */
  patch?: boolean;
  /** At most this many changes (default 50). */
  limit?: number;
  /** Skip this many changes first (the marker's retrieval action pages with it). */
  offset?: number;
}

const DEFAULT_LIMIT = 50;
/** The totals count at most this many changes (then they say "at least"): the same bound settle reads a moved parent with. */
const TOTALS_CAP = 100_000;
const MAX_LIMIT = 1000;
/** A file larger than this on either side is named, not diffed. */
const PATCH_FILE_BYTES = 256 * 1024;
/** All the patches of one result together: the rest are named with the call that shows them. */
const PATCH_BUDGET_CHARS = 16_000;

/** The checkpoint diff compares with, and how it was chosen. */
async function baseOf(target: SnapshotTarget, input: DiffInput): Promise<{ id: string; what: string }> {
  if (input.from !== undefined && input.sinceFork === true)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('from')} and ${inputRef('sinceFork')} name two baselines; pass one`, {
      hint: `${inputRef('from')} names a checkpoint; ${inputRef('sinceFork')} the fork baseline`,
      inputsOf: 'diff',
    });
  const fork = target.records.forkOf(target.ws.id);
  if (input.from !== undefined) {
    const cp = await requireUsableCheckpoint(target, input.from);
    return { id: cp.id, what: `checkpoint ${cp.id}${cp.label ? ` (${cp.label})` : ''}` };
  }
  if (input.sinceFork === true && !fork)
    throw new EngineError('BAD_ARGUMENT', `workspace ${target.ws.id} is not a fork; it has no fork baseline`, {
      hint: 'name a checkpoint to compare with',
      action: nextAction('inspect', { handle: target.ws.id }),
    });
  if (fork) return { id: (await requireUsableCheckpoint(target, fork.childBaseId)).id, what: `the fork baseline (from ${fork.parentId})` };
  const latest = target.records
    .checkpointsOf(target.ws.id, ['user'])
    .filter((c) => c.state === 'valid')
    .pop();
  if (!latest)
    throw new EngineError('BAD_ARGUMENT', `workspace ${target.ws.id} has no checkpoint to compare with`, {
      hint: 'take a checkpoint first',
      action: nextAction('checkpoint', { workspaceId: target.ws.id }),
    });
  return { id: (await requireUsableCheckpoint(target, latest.id)).id, what: `its latest checkpoint ${latest.id}` };
}

export function describeChange(c: TreeChange): string {
  const name = displayName(c.path);
  const type = c.type === 'file' ? '' : ` (${c.type})`;
  if (c.kind === 'delete') return `deleted ${name}${type}${c.previousSha256 ? `, was sha256:${c.previousSha256}` : ''}`;
  const verb = c.kind === 'create' ? 'created' : 'modified';
  const digest = c.sha256 ? `, sha256:${c.sha256}` : '';
  return `${verb} ${name}${type}: ${c.size} bytes${digest}${c.mode !== null && c.type !== 'symlink' ? `, mode ${c.mode.toString(8).padStart(4, '0')}` : ''}`;
}

/** The whole diff's counts and bytes, however it is paged. */
function diffTotals(all: readonly TreeChange[], beyond: boolean): { create: number; modify: number; delete: number; bytes: number; text: string } {
  const t = { create: 0, modify: 0, delete: 0, bytes: 0 };
  for (const c of all) {
    t[c.kind]++;
    if (c.kind !== 'delete') t.bytes += c.size;
  }
  const atLeast = beyond ? 'at least ' : '';
  return {
    ...t,
    text: `${atLeast}${all.length} change(s): ${t.create} created, ${t.modify} modified, ${t.delete} deleted; ${atLeast}${t.bytes} bytes of new content`,
  };
}

const isText = (bytes: Buffer) => !bytes.subarray(0, 8192).includes(0) && Buffer.from(bytes.toString('utf8'), 'utf8').equals(bytes);

/** Created, modified and deleted paths since a checkpoint, with sizes and digests; a page at a time, and with patch the text diffs. */
export async function diffWorkspace(ctx: EngineContext, input: DiffInput): Promise<ResultPackage> {
  const limit = input.limit ?? DEFAULT_LIMIT;
  const offset = input.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('limit')} takes a whole number from 1 to ${MAX_LIMIT}`, {
      hint: `for example ${inputRef('limit', DEFAULT_LIMIT)}`,
      inputsOf: 'diff',
    });
  if (!Number.isInteger(offset) || offset < 0 || offset > 1_000_000)
    throw new EngineError('BAD_ARGUMENT', `${inputRef('offset')} takes a whole number from 0`, {
      hint: `the marker of a longer diff gives the next ${inputRef('offset')}`,
      inputsOf: 'diff',
    });
  const target = await requireSnapshots(ctx, input.workspaceId, 'diff');
  const attention = await reconcile(ctx, { workspaceId: target.ws.id });
  const startedAt = ctx.clock.now();
  const base = await baseOf(target, input);
  // The whole list, not the page: the totals describe the whole diff (a page's counts read as the diff's were wrong). O(changed), bounded.
  const { changes: all, truncated: beyond } = await target.ops.changes(target.ws.id, base.id, TOTALS_CAP);
  const page = all.slice(offset, offset + limit);
  const truncated = offset + page.length < all.length || beyond;
  const findings: KeyFinding[] = page.map(describeChange);
  const again = (args: Record<string, string | number | boolean>): NextAction =>
    nextAction('diff', { workspaceId: target.ws.id, ...(input.from ? { from: base.id } : {}), ...(input.sinceFork ? { sinceFork: true } : {}), ...args });
  if (truncated) {
    findings.push(`… more changes after these ${page.length} (the list is bounded)`);
    attention.push(
      attentionItem('next-step', 'to see the next changes', {
        workspace_id: target.ws.id,
        action: again({ offset: offset + page.length, limit, ...(input.patch ? { patch: true } : {}) }),
      }),
    );
  }
  const evidence: Evidence[] = [];
  if (input.patch === true) {
    const patches: string[] = [];
    const named: string[] = [];
    let used = 0;
    let cutAt: number | null = null;
    // The checkpoint is opened once for the page's old texts (on native, one view mount), and only if one is needed.
    let checkpoint: CheckpointReader | null = null;
    const oldText = async (path: string) => readWhole((checkpoint ??= await target.ops.openAt(target.ws.id, base.id)).read(path), PATCH_FILE_BYTES);
    try {
      for (const [i, c] of page.entries()) {
        if (c.type !== 'file') continue;
        const before = c.kind === 'create' ? Buffer.alloc(0) : await oldText(c.path);
        const after = c.kind === 'delete' ? Buffer.alloc(0) : await readWhole(target.provider.read(target.ws.id, c.path), PATCH_FILE_BYTES);
        if (before === null || after === null) {
          named.push(`${displayName(c.path)}: larger than ${PATCH_FILE_BYTES} bytes, not diffed`);
          continue;
        }
        if (!isText(before) || !isText(after)) {
          named.push(`${displayName(c.path)}: binary, not shown`);
          continue;
        }
        const text = unifiedDiff(displayName(c.path), before.toString('utf8'), after.toString('utf8'));
        if (used + text.length > PATCH_BUDGET_CHARS && patches.length > 0) {
          cutAt = offset + i;
          break;
        }
        patches.push(text);
        used += text.length;
      }
    } finally {
      await (checkpoint as CheckpointReader | null)?.close();
    }
    evidence.push({
      label: `patch against ${base.what}`,
      kind: 'excerpt',
      source: target.ws.id,
      truncated: cutAt !== null,
      excerpt: [...patches, ...named.map((n) => `# ${n}`)].join('') || '(no text changes)',
      ...(cutAt === null ? {} : { retrieval_action: again({ offset: cutAt, limit, patch: true }) }),
    });
  }
  const totals = diffTotals(all, beyond);
  const shown = page.length === 0 ? `no change at offset ${offset}` : `changes ${offset + 1}–${offset + page.length}`;
  findings.push({
    kind: 'diff-totals',
    text: `whole diff: ${totals.text}; this page: ${shown}${truncated ? ', more follow' : ''}`,
    base_checkpoint_id: base.id,
    total_changes: all.length,
    totals_complete: !beyond,
    created: totals.create,
    modified: totals.modify,
    deleted: totals.delete,
    total_bytes: totals.bytes,
    page_offset: offset,
    page_changes: page.length,
    has_more: truncated,
  });
  return buildResult({
    outcome_summary:
      all.length === 0
        ? `workspace ${target.ws.id} has not changed since ${base.what}`
        : `workspace ${target.ws.id} since ${base.what}: ${totals.text}${all.length > page.length ? ` (this page: ${shown})` : ''}`,
    status: 'success',
    key_findings: findings,
    evidence,
    provenance: provenanceFor(ctx, 'diff', { workspace: target.ws, startedAt, finishedAt: ctx.clock.now() }),
    attention,
  });
}
