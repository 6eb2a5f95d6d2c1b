import type { EngineContext } from '../context.js';
import { EngineError } from '../errors.js';
import { inputRef } from '../verb-table/command-words.js';
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

/**
 * A review policy from its parts, checked: null when none is given. Its refusals name the parts as inputs of
 * `at.verb`: review-policy's own (denyPaths, its --deny-path), or create's `reviewPolicy.denyPaths` (create's --deny-path).
 */
export function reviewPolicyOf(
  parts: { denyPaths?: string[]; maxFiles?: number; maxBytes?: number },
  base: ReviewPolicy | null = null,
  at: { verb: string; path: string } = { verb: 'review-policy', path: '' },
): ReviewPolicy | null {
  if (parts.denyPaths === undefined && parts.maxFiles === undefined && parts.maxBytes === undefined) return base;
  const globs = parts.denyPaths ?? base?.denyPaths ?? [];
  if (!Array.isArray(globs) || globs.length > MAX_GLOBS || globs.some((g) => typeof g !== 'string' || g === '' || g.length > 256 || g.includes('\0')))
    throw new EngineError('BAD_ARGUMENT', `${inputRef(`${at.path}denyPaths`)} takes up to ${MAX_GLOBS} non-empty globs`, {
      hint: 'for example *.pem, .git/**, .env',
      inputsOf: at.verb,
    });
  for (const [key, value] of [
    ['maxFiles', parts.maxFiles],
    ['maxBytes', parts.maxBytes],
  ] as const)
    if (value !== undefined && (!Number.isInteger(value) || value < 0 || value > 2 ** 50))
      throw new EngineError('BAD_ARGUMENT', `${inputRef(`${at.path}${key}`)} takes a whole number from 0`, {
        hint: `for example ${inputRef(`${at.path}${key}`, key === 'maxFiles' ? 100 : 10485760)}`,
        inputsOf: at.verb,
      });
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
    throw new EngineError('BAD_ARGUMENT', `${inputRef('clear')} removes the review policy; it takes no other setting`, {
      hint: 'clear it, or set it',
      inputsOf: 'review-policy',
    });
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
