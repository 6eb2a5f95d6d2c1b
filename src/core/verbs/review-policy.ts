import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { buildResult } from '../result/build-result.js';
import type { ResultPackage } from '../result/result-package.js';
import { provenanceFor } from '../result/package-parts.js';
import { snapshotRecords } from '../snapshots/snapshot-guards.js';
import type { ReviewPolicy } from '../snapshots/snapshot-records.js';
import { requireLiveWorkspace } from './workspace-guards.js';

export interface ReviewPolicyInput {
  workspaceId: string;
  /** Globs no settled output may touch, e.g. `*.pem`, `.git/**`, `.env`. Replaces the list. */
  denyPaths?: string[];
  /** At most this many changed paths per settled output. */
  maxFiles?: number;
  /** At most this many changed bytes per settled output. */
  maxBytes?: number;
  /** Remove the review policy (every reviewer then allows). */
  clear?: boolean;
}

const MAX_GLOBS = 64;

/** A review policy from its parts, checked: null when none is given. */
export function reviewPolicyOf(parts: { denyPaths?: string[]; maxFiles?: number; maxBytes?: number }, base: ReviewPolicy | null = null): ReviewPolicy | null {
  if (parts.denyPaths === undefined && parts.maxFiles === undefined && parts.maxBytes === undefined) return base;
  const globs = parts.denyPaths ?? base?.denyPaths ?? [];
  if (!Array.isArray(globs) || globs.length > MAX_GLOBS || globs.some((g) => typeof g !== 'string' || g === '' || g.length > 256 || g.includes('\0')))
    throw new EngineError('BAD_ARGUMENT', `denyPaths takes up to ${MAX_GLOBS} non-empty globs`, { hint: 'for example *.pem, .git/**, .env' });
  for (const [key, value] of [
    ['maxFiles', parts.maxFiles],
    ['maxBytes', parts.maxBytes],
  ] as const)
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > 2 ** 50))
      throw new EngineError('BAD_ARGUMENT', `${key} takes a whole number from 0`, { hint: `for example ${key === 'maxFiles' ? 100 : 10485760}` });
  return { denyPaths: [...globs], maxFiles: parts.maxFiles ?? base?.maxFiles ?? null, maxBytes: parts.maxBytes ?? base?.maxBytes ?? null };
}

export function describeReviewPolicy(policy: ReviewPolicy | null): string[] {
  return [
    `deny-paths: ${policy?.denyPaths.length ? policy.denyPaths.join(', ') : '(none)'}`,
    `max-changes: ${policy?.maxFiles ?? 'no'} file limit, ${policy?.maxBytes ?? 'no'} byte limit`,
  ];
}

/** Sets (or, with no setting, shows) the merge gate a workspace's outputs pass before settling into it. */
export async function setReviewPolicy(ctx: EngineContext, input: ReviewPolicyInput): Promise<ResultPackage> {
  const ws = requireLiveWorkspace(ctx, input.workspaceId);
  const records = snapshotRecords(ctx);
  const current = records.reviewPolicy(ws.id);
  if (input.clear === true && (input.denyPaths !== undefined || input.maxFiles !== undefined || input.maxBytes !== undefined))
    throw new EngineError('BAD_ARGUMENT', 'clear removes the review policy; it takes no other setting', { hint: 'clear it, or set it' });
  const next = input.clear === true ? null : reviewPolicyOf(input, current);
  const changed = JSON.stringify(next) !== JSON.stringify(current);
  if (changed) records.setReviewPolicy(ws.id, next);
  const now = ctx.clock.now();
  return buildResult({
    outcome_summary: changed ? `the merge gate of workspace ${ws.id} is set` : `the merge gate of workspace ${ws.id} is unchanged`,
    status: 'success',
    key_findings: describeReviewPolicy(next),
    provenance: provenanceFor(ctx, 'review-policy', { workspace: ws, startedAt: now, finishedAt: now }),
  });
}
