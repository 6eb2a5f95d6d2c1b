/**
 * The merge gate (#14 item 5), pure: the built-in reviewers judge a sealed
 * output's proposal (paths, kinds, sizes — never file bodies) against the
 * parent's review policy before anything changes. Every reviewer gives a
 * decision, allow or deny, with its reason; settle journals them all.
 */
import type { TreeChange } from './snapshot-ops.js';
import type { ReviewDecision, ReviewPolicy } from './snapshot-records.js';

/** A glob as the deny-paths reviewer reads it: `*` within one name, `**` across names; a pattern with no `/` matches a name at any depth. */
export function globMatches(glob: string, path: string): boolean {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i]!;
    if (ch === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const anchored = glob.includes('/') ? `^${re}$` : `(^|/)${re}$`;
  return new RegExp(anchored).test(path) || (glob.endsWith('/**') && path === glob.slice(0, -3));
}

export function reviewProposal(changes: readonly TreeChange[], policy: ReviewPolicy | null): ReviewDecision[] {
  const paths = changes.map((c) => c.path);
  const kinds = changes.map((c) => c.kind);
  const decisions: ReviewDecision[] = [];
  const denyPaths = policy?.denyPaths ?? [];
  const hits = changes.filter((c) => denyPaths.some((g) => globMatches(g, c.path)));
  decisions.push(
    hits.length === 0
      ? {
          reviewer: 'deny-paths',
          verdict: 'allow',
          reason: denyPaths.length ? `no path matches ${denyPaths.join(', ')}` : 'no denied paths configured',
          paths,
          kinds,
        }
      : {
          reviewer: 'deny-paths',
          verdict: 'deny',
          reason: hits.map((c) => `${c.path} matches ${denyPaths.find((g) => globMatches(g, c.path))}`).join('; '),
          paths: hits.map((c) => c.path),
          kinds: hits.map((c) => c.kind),
        },
  );
  const bytes = changes.reduce((n, c) => n + c.size, 0);
  const over: string[] = [];
  if (policy?.maxFiles != null && changes.length > policy.maxFiles) over.push(`${changes.length} changed paths > max ${policy.maxFiles}`);
  if (policy?.maxBytes != null && bytes > policy.maxBytes) over.push(`${bytes} changed bytes > max ${policy.maxBytes}`);
  decisions.push(
    over.length === 0
      ? {
          reviewer: 'max-changes',
          verdict: 'allow',
          reason: `${changes.length} path(s), ${bytes} bytes${policy?.maxFiles != null || policy?.maxBytes != null ? ' within the limits' : ' (no limits configured)'}`,
          paths,
          kinds,
        }
      : { reviewer: 'max-changes', verdict: 'deny', reason: over.join('; '), paths, kinds },
  );
  return decisions;
}
